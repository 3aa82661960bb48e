import { defineConfig } from 'tsdown';
import { libraryBuild } from '../../build/library-config.ts';

// `#hmac`, `#aead` and `#http-exchange` stay imports so each runtime picks its own
// implementation through the package.json `imports` conditions: node:crypto and node:http on
// Node, Web Crypto and fetch on Workers, Bun, Deno and in browsers.
export default defineConfig(
  libraryBuild(
    {
      index: 'src/index.ts',
      'adapter/index': 'src/adapter/index.ts',
      'store/index': 'src/store/index.ts',
      'testing/index': 'src/testing/index.ts',
      'opentelemetry/index': 'src/opentelemetry/index.ts',
      'hmac-node': 'src/wire/signature/hmac-node.ts',
      'hmac-web': 'src/wire/signature/hmac-web.ts',
      'aead-node': 'src/store/sealed/aead-node.ts',
      'aead-web': 'src/store/sealed/aead-web.ts',
      'http-exchange-node': 'src/client/http-exchange-node.ts',
      'http-exchange-web': 'src/client/http-exchange-web.ts',
    },
    // @opentelemetry/api is an optional peer: imported by the opentelemetry entry only.
    { deps: { neverBundle: ['#hmac', '#aead', '#http-exchange', '@opentelemetry/api'] } },
  ),
);
