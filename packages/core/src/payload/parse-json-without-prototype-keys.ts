// The own key, as JSON.parse creates it; never the accessor of the same name.
const PROTO_KEY = '__proto__';
const CONSTRUCTOR_KEY: string = 'constructor';

function holdsPrototypeKey(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.hasOwn(value, 'prototype');
}

/**
 * Deletes, at every depth, each own `__proto__` key and each `constructor` key whose value
 * holds a `prototype` key. Keys are compared as parsed, so every spelling (`\u` escapes
 * included) is caught. Walks with a stack of its own, so a deeply nested value that
 * `JSON.parse` accepted cannot overflow the call stack here. Visiting the parsed keys of a
 * webhook costs a fraction of scanning its text for the words (or of a reviver).
 */
function dropPrototypeKeys(root: object): void {
  const stack: object[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
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
      const value = record[key];
      if (typeof value === 'object' && value !== null) stack.push(value);
    }
  }
}

/**
 * `JSON.parse` without the keys that let later spreading or merging reach a prototype:
 * every `__proto__` key, however it is spelled and however deep, and every `constructor`
 * object that holds a `prototype` key. Objects stay plain (`Object.prototype`). Throws
 * `SyntaxError` like `JSON.parse`.
 */
export function parseJsonWithoutPrototypeKeys(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (typeof value === 'object' && value !== null) dropPrototypeKeys(value);
  return value;
}
