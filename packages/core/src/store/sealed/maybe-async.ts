/**
 * A value, or a promise of it where the runtime's crypto is asynchronous (Web Crypto on
 * Workers, Deno, browsers). On Node, `#hmac` and `#aead` answer at once, and so does
 * everything built on them here: no promise is made for work that waits on nothing.
 */
export type MaybeAsync<T> = T | Promise<T>;

/** `next` of `value`: at once when it is a value, once it resolves when it is a promise. */
export function andThen<T, U>(value: MaybeAsync<T>, next: (value: T) => Promise<U>): Promise<U>;
export function andThen<T, U>(
  value: MaybeAsync<T>,
  next: (value: T) => MaybeAsync<U>,
): MaybeAsync<U>;
export function andThen<T, U>(
  value: MaybeAsync<T>,
  next: (value: T) => MaybeAsync<U>,
): MaybeAsync<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** Every value of `values`, as an array at once when none of them is a promise. */
export function allOf<T>(values: readonly MaybeAsync<T>[]): MaybeAsync<T[]> {
  return values.some((value) => value instanceof Promise) ? Promise.all(values) : (values as T[]);
}
