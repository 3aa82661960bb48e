import { BrowserRefusedError, createClient } from '../../src/index.js';
import { check, type PortableCase } from './case.js';

export const clientRuntimeCases: PortableCase[] = [
  {
    name: 'the API client can be created in this server runtime, and not with a plain http host',
    run() {
      const client = createClient({
        apiKey: 'fv_test_runtime_key',
        baseUrl: 'https://verify.example.test',
      });
      check(typeof client.createSession === 'function', 'client created');
      let refused: unknown;
      try {
        createClient({ apiKey: 'fv_test_runtime_key', baseUrl: 'http://verify.example.test' });
      } catch (error) {
        refused = error;
      }
      check(
        refused instanceof Error && !(refused instanceof BrowserRefusedError),
        'plain http to another host is refused as configuration',
      );
    },
  },
];
