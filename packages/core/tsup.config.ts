import { defineConfig } from 'tsup';

// `#hmac` stays an import so each runtime picks its own implementation through the
// package.json `imports` conditions: node:crypto on Node, Web Crypto on Workers and browsers.
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'adapter/index': 'src/adapter/index.ts',
    'store/index': 'src/store/index.ts',
    'testing/index': 'src/testing/index.ts',
    'hmac-node': 'src/signature/hmac-node.ts',
    'hmac-web': 'src/signature/hmac-web.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'es2022',
  external: ['#hmac'],
  removeNodeProtocol: false,
});
