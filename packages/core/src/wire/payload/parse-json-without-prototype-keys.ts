// The own key, as JSON.parse creates it; never the accessor of the same name.
const PROTO_KEY = '__proto__';
const CONSTRUCTOR_KEY: string = 'constructor';

function holdsPrototypeKey(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, 'prototype');
}

/**
 * The deepest nesting accepted. `JSON.parse` takes values nested tens of thousands deep, but
 * whatever later walks them by recursion (`JSON.stringify` when a result is sealed or stored,
 * a handler's own code) overflows the call stack on them: no payload of the service nests
 * beyond a few levels, so one that does is refused here, where it is one clear error.
 */
export const MAX_JSON_DEPTH = 256;

/** Thrown for a value nested deeper than {@link MAX_JSON_DEPTH}. */
export class JsonTooDeepError extends SyntaxError {
  constructor() {
    super(`The JSON is nested deeper than ${MAX_JSON_DEPTH} levels.`);
  }
}

/**
 * `JSON.parse` without the keys that let later spreading or merging reach a prototype:
 * every `__proto__` key, however it is spelled and however deep, and every `constructor`
 * object that holds a `prototype` key. Objects stay plain (`Object.prototype`). Throws
 * `SyntaxError` like `JSON.parse`, and `JsonTooDeepError` (a `SyntaxError`) for a value
 * nested deeper than {@link MAX_JSON_DEPTH}.
 */
export function parseJsonWithoutPrototypeKeys(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (typeof value !== 'object' || value === null) return value;
  // Deletes, at every depth, each own `__proto__` key and each `constructor` key whose value
  // holds a `prototype` key. Keys are compared as parsed, so every spelling (`\u` escapes
  // included) is caught. Walks with a stack of its own, so a deeply nested value that
  // `JSON.parse` accepted cannot overflow the call stack here. Visiting the parsed keys of a
  // webhook costs a fraction of scanning its text for the words (or of a reviver).
  const stack: object[] = [value];
  // The depth of each node on the stack, at the same index.
  const depths: number[] = [1];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    const depth = depths.pop()!;
    if (depth > MAX_JSON_DEPTH) throw new JsonTooDeepError();
    const record = node as Record<string, unknown>;
    if (!Array.isArray(node)) {
      if (Object.hasOwn(record, PROTO_KEY)) delete record[PROTO_KEY];
      // `{"constructor":{"prototype":…}}` is dropped too: deep-merge functions follow it to
      // `Object.prototype` just as they follow `__proto__`.
      if (Object.hasOwn(record, CONSTRUCTOR_KEY) && holdsPrototypeKey(record[CONSTRUCTOR_KEY])) {
        delete record[CONSTRUCTOR_KEY];
      }
    }
    for (const key in record) {
      const child = record[key];
      if (typeof child === 'object' && child !== null) {
        stack.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return value;
}
