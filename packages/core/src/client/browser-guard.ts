import { BrowserRefusedError } from '../base/errors.js';

interface GlobalScope {
  window?: unknown;
  document?: unknown;
  self?: unknown;
  importScripts?: unknown;
  WorkerGlobalScope?: unknown;
  process?: { versions?: { node?: unknown } };
  Deno?: unknown;
  Bun?: unknown;
  navigator?: { userAgent?: unknown };
}

// Server runtimes that share browser globals: Node, Bun and Deno have `process.versions.node`
// (Deno 2, Bun) or their own global; workerd defines `self` and `WorkerGlobalScope`, but
// `self` is not an instance of it and its user agent says so.
function isServerRuntime(scope: GlobalScope): boolean {
  return (
    typeof scope.process?.versions?.node === 'string' ||
    scope.Deno !== undefined ||
    scope.Bun !== undefined ||
    scope.navigator?.userAgent === 'Cloudflare-Workers'
  );
}

// Dedicated, shared and service workers have neither `window` nor `document`, yet run in the
// browser and can be read by anyone who loads the page.
function isBrowserWorker(scope: GlobalScope): boolean {
  if (typeof scope.importScripts === 'function') return true;
  const workerScope = scope.WorkerGlobalScope;
  return typeof workerScope === 'function' && scope.self instanceof workerScope;
}

/** Whether `scope` is a browser page or a browser worker (jsdom counts: it looks like one). */
export function isBrowserScope(scope: GlobalScope): boolean {
  if (scope.window !== undefined && scope.document !== undefined) return true;
  return !isServerRuntime(scope) && isBrowserWorker(scope);
}

/**
 * Throws when the code runs in a browser, a page or a Web Worker: the client sends the API
 * key with every call, and the service forbids shipping an API key to the browser. `window`
 * alone is not enough, because some server runtimes define it.
 */
export function assertServerRuntime(
  allowBrowser: boolean,
  scope: GlobalScope = globalThis as GlobalScope,
): void {
  if (allowBrowser || !isBrowserScope(scope)) return;
  throw new BrowserRefusedError(
    'The faceverify API client refuses to run in a browser (a page or a Web Worker): it sends ' +
      'your API key, and an API key must never be shipped to the browser. Create sessions on ' +
      'your backend and send only the verifyUrl to the browser. If this is not a real browser ' +
      '(a jsdom test, for example), pass dangerouslyAllowBrowser: true.',
  );
}
