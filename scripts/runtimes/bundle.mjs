// Finds the portable case files and bundles one self-contained entry per runtime target.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const RUNTIMES_DIR = fileURLToPath(new URL('.', import.meta.url));
const SUITES_MODULE = 'faceverify:portable-suites';

/** Workspace packages are bundled from their TypeScript sources, as the Vitest projects use them. */
const SOURCE_CONDITION = '@faceverify/source';

/**
 * How each runtime resolves packages. Node, Bun and Deno take the `node` branch of an exports
 * map (node:crypto behind `#hmac`); workerd takes the branches wrangler would, so the Web
 * Crypto implementation is the one that runs there.
 */
export const TARGETS = {
  node: { platform: 'node', conditions: [SOURCE_CONDITION, 'node'], entry: 'entry-process.mjs' },
  bun: {
    platform: 'node',
    conditions: [SOURCE_CONDITION, 'bun', 'node'],
    entry: 'entry-process.mjs',
  },
  deno: {
    platform: 'node',
    conditions: [SOURCE_CONDITION, 'deno', 'node'],
    entry: 'entry-process.mjs',
  },
  workerd: {
    platform: 'neutral',
    conditions: [SOURCE_CONDITION, 'workerd', 'worker', 'browser'],
    mainFields: ['browser', 'module', 'main'],
    entry: 'entry-worker.mjs',
    forbidNodeImports: true,
  },
};

/** Every `packages/<name>/test/portable/<topic>.cases.ts`, in a stable order. */
export function discoverCaseFiles(root) {
  const files = [];
  const packagesDir = join(root, 'packages');
  for (const pkg of readdirSync(packagesDir, { withFileTypes: true })) {
    if (!pkg.isDirectory()) continue;
    const portableDir = join(packagesDir, pkg.name, 'test', 'portable');
    let entries;
    try {
      entries = readdirSync(portableDir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.isFile() && entry.name.endsWith('.cases.ts')) {
        files.push({
          path: join(portableDir, entry.name),
          file: relative(root, join(portableDir, entry.name)).split('\\').join('/'),
          label: `${pkg.name}/${entry.name.slice(0, -'.cases.ts'.length)}`,
        });
      }
    }
  }
  return files.sort((a, b) => a.file.localeCompare(b.file));
}

/** The generated module the entries import: every case file, as a namespace object. */
function suitesPlugin(root, caseFiles) {
  const contents = [
    ...caseFiles.map(
      (caseFile, i) =>
        `import * as suite${i} from ${JSON.stringify(caseFile.path.split('\\').join('/'))};`,
    ),
    'export const suites = [',
    ...caseFiles.map(
      (caseFile, i) =>
        `  { file: ${JSON.stringify(caseFile.file)}, label: ${JSON.stringify(caseFile.label)}, exports: suite${i} },`,
    ),
    '];',
  ].join('\n');
  return {
    name: 'portable-suites',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /^faceverify:portable-suites$/ }, () => ({
        path: SUITES_MODULE,
        namespace: 'faceverify',
      }));
      pluginBuild.onLoad({ filter: /.*/, namespace: 'faceverify' }, () => ({
        contents,
        resolveDir: root,
        loader: 'js',
      }));
    },
  };
}

/**
 * Records every `node:` import instead of failing on the first, so the report names each one
 * and the file that imports it. Workers run without `nodejs_compat`: such an import would fail
 * to load there, and in a user's Worker bundle. (A bare `crypto` is left to normal resolution:
 * unless a package of that name is installed, the build fails and says so.)
 */
function nodeImportGuard(found, root) {
  return {
    name: 'node-import-guard',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /^node:/ }, (args) => {
        found.push({ specifier: args.path, importer: relative(root, args.importer) });
        return { path: args.path, external: true };
      });
    },
  };
}

/** Import specifiers of `node:` modules left in bundled output (static, dynamic or require). */
export function nodeImportsIn(text) {
  const pattern = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["'](node:[^"']+)["']/g;
  return [...new Set([...text.matchAll(pattern)].map((match) => match[1]))];
}

// Bundled CommonJS dependencies call `require` for built-ins; an ES module has none.
const REQUIRE_SHIM =
  "import { createRequire as __faceverifyCreateRequire } from 'node:module';\n" +
  'const require = __faceverifyCreateRequire(import.meta.url);';

/**
 * Bundles the entry for one target into `outDir/<target>.mjs`.
 * @returns {Promise<{ outfile: string, nodeImports: Array<{ specifier: string, importer: string }> }>}
 */
export async function bundleTarget(name, { root, outDir, caseFiles }) {
  const target = TARGETS[name];
  const outfile = join(outDir, `${name}.mjs`);
  const nodeImports = [];
  const plugins = [suitesPlugin(root, caseFiles)];
  if (target.forbidNodeImports) plugins.push(nodeImportGuard(nodeImports, root));
  await build({
    entryPoints: [join(RUNTIMES_DIR, target.entry)],
    outfile,
    bundle: true,
    format: 'esm',
    target: 'esnext',
    platform: target.platform,
    conditions: target.conditions,
    ...(target.mainFields ? { mainFields: target.mainFields } : {}),
    ...(target.platform === 'node' ? { banner: { js: REQUIRE_SHIM } } : {}),
    // Stack traces of failing cases point into the TypeScript sources.
    sourcemap: target.platform === 'node' ? 'inline' : false,
    absWorkingDir: root,
    logLevel: 'silent',
    plugins,
  });
  if (target.forbidNodeImports) {
    // Belt and braces: whatever the guard saw, the output itself must not import node:.
    for (const specifier of nodeImportsIn(readFileSync(outfile, 'utf8'))) {
      if (!nodeImports.some((found) => found.specifier === specifier)) {
        nodeImports.push({ specifier, importer: '(bundle output)' });
      }
    }
  }
  return { outfile, nodeImports };
}
