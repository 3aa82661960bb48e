import { BrowserRefusedError } from '../errors.js';

/**
 * Throws when the code runs in a browser: the client sends the API key with every call, and
 * the service forbids shipping an API key to the browser. Both globals are checked because
 * some server runtimes define `window` alone.
 */
export function assertServerRuntime(allowBrowser: boolean): void {
  const scope = globalThis as { window?: unknown; document?: unknown };
  if (allowBrowser || scope.window === undefined || scope.document === undefined) return;
  throw new BrowserRefusedError(
    'The faceverify API client refuses to run in a browser: it sends your API key, and an API ' +
      'key must never be shipped to the browser. Create sessions on your backend and send only ' +
      'the verifyUrl to the browser. If this is not a real browser (a jsdom test, for example), ' +
      'pass dangerouslyAllowBrowser: true.',
  );
}
