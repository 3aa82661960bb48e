import { defineConfig } from 'tsup';

// `#hmac` stays an import so each runtime picks its own implementation through the
// package.json `imports` conditions: node:crypto on Node, Web Crypto on Workers and browsers.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'adapter/index': 'src/adapter/index.ts',
    'store/index': 'src/store/index.ts',
    'testing/index': 'src/testing/index.ts',
    'opentelemetry/index': 'src/opentelemetry/index.ts',
    'hmac-node': 'src/signature/hmac-node.ts',
    'hmac-web': 'src/signature/hmac-web.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'es2022',
  // The optional peer stays an import: the application brings its own copy (or none).
  external: ['#hmac', '@opentelemetry/api'],
  removeNodeProtocol: false,
});
