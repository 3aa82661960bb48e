#!/usr/bin/env node
// The TypeScript in the docs compiles against the built packages. Every
// ```ts / ```typescript block of README.md, docs/*.md and packages/*/README.md becomes a module
// of one tsc program in .doc-snippets/ (gitignored), resolving packages as an app that
// installed them would (the built `exports`, not the sources); errors point at the markdown.
//
// A line right before a fence can say what the block is:
//   <!-- fragment -->            a piece of a larger program (names declared elsewhere): skipped.
//   <!-- unchecked: <why> -->    a complete program for a platform this repository does not
//                                install (Astro, React Router): skipped, saying why.
//   <!-- file: <path> -->        a file other blocks of the same page import (`./<path>`).
//   <!-- recipe: <file> -->      a complete recipe that must equal <file> (an example that runs
//                                in its tests), and appear in both docs/frameworks.md and a
//                                package README. Not compiled here: `pnpm typecheck` compiles
//                                the file and its example's test runs it.
//
// Workers, Bun and Deno globals the snippets use come from scripts/doc-snippets-globals.d.ts.
//
// usage: node scripts/check-doc-snippets.mjs [--write-recipes] [--if-built], or
// `pnpm check:docs` (after `pnpm build`). `pnpm typecheck` runs it with --if-built: on a clone
// not built yet it checks the recipes and says the blocks were not compiled; CI runs
// `pnpm check:docs` after the build.
import { execFileSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, '.doc-snippets');
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const FENCE = /^```(ts|typescript)\s*$/;
const MARKER = /^<!--\s*(fragment|unchecked|file|recipe)(?::\s*(.+?))?\s*-->$/;
const FRAMEWORKS_DOC = 'docs/frameworks.md';
const GLOBALS = join(ROOT, 'scripts', 'doc-snippets-globals.d.ts');

/** The markdown files whose TypeScript is checked, relative to the root. */
function markdownFiles() {
  const inFolder = (folder, pick) =>
    readdirSync(join(ROOT, folder), { withFileTypes: true })
      .filter(pick)
      .map((entry) => `${folder}/${entry.name}`);
  const packageReadmes = inFolder('packages', (entry) => entry.isDirectory())
    .map((folder) => `${folder}/README.md`)
    .filter((file) => existsSync(join(ROOT, file)));
  return [
    'README.md',
    ...inFolder('docs', (entry) => entry.isFile() && entry.name.endsWith('.md')),
    ...packageReadmes,
  ];
}

/**
 * The TypeScript blocks of one markdown file.
 * @param {string} file
 * @returns {{ file: string, line: number, code: string, kind: string, path?: string }[]}
 */
function blocksOf(file) {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    if (!FENCE.test(lines[i])) continue;
    const end = lines.findIndex((line, j) => j > i && line.startsWith('```'));
    if (end < 0) throw new Error(`${file}:${i + 1}: a code block that is never closed`);
    const marker = MARKER.exec(lines[i - 1]?.trim() ?? '');
    const code = lines.slice(i + 1, end).join('\n');
    const kind = marker?.[1] ?? 'checked';
    if (kind !== 'fragment' && kind !== 'checked' && !marker?.[2]) {
      throw new Error(`${file}:${i}: <!-- ${kind}: … --> needs what follows the colon`);
    }
    blocks.push({ file, line: i + 2, code, kind, path: marker?.[2] });
    i = end;
  }
  return blocks;
}

/** A recipe's code without a first line `// <path>` naming the file it shows. */
function withoutPathLine(block) {
  const [first, ...rest] = block.code.split('\n');
  const named = /^\/\/ (\S+)$/.exec(first ?? '');
  return named && block.path.endsWith(`/${named[1]}`) ? rest.join('\n') : block.code;
}

/**
 * `--write-recipes`: copies each recipe's file into its blocks (after a change to the
 * example), keeping a block's first line `// <path>`.
 */
function writeRecipes(blocks) {
  for (const file of new Set(blocks.filter((b) => b.kind === 'recipe').map((b) => b.file))) {
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
    // From the end, so that the line numbers of the blocks before stay right.
    const recipes = blocks.filter((b) => b.file === file && b.kind === 'recipe').reverse();
    for (const block of recipes) {
      const code = readFileSync(join(ROOT, block.path), 'utf8').trimEnd();
      const pathLine = withoutPathLine(block) === block.code ? [] : [block.code.split('\n')[0]];
      const length = block.code.split('\n').length;
      lines.splice(block.line - 1, length, ...pathLine, ...code.split('\n'));
    }
    writeFileSync(join(ROOT, file), lines.join('\n'));
  }
}

/** Problems with the recipes: each equals its example file and appears in both places. */
function recipeProblems(blocks) {
  const problems = [];
  const byFile = new Map();
  for (const block of blocks.filter((b) => b.kind === 'recipe')) {
    const where = `${block.file}:${block.line}`;
    const source = join(ROOT, block.path);
    if (!existsSync(source)) {
      problems.push(`${where}: the recipe names ${block.path}, which does not exist`);
    } else if (readFileSync(source, 'utf8').trimEnd() !== withoutPathLine(block).trimEnd()) {
      problems.push(
        `${where}: the recipe differs from ${block.path}, the file its example's test runs; copy it in with \`node scripts/check-doc-snippets.mjs --write-recipes\``,
      );
    }
    byFile.set(block.path, [...(byFile.get(block.path) ?? []), block.file]);
  }
  for (const [recipe, files] of byFile) {
    const inDocs = files.includes(FRAMEWORKS_DOC);
    const inReadme = files.some((file) => file.startsWith('packages/'));
    if (!inDocs || !inReadme) {
      problems.push(
        `${recipe}: shown in ${files.join(', ')}; a recipe appears in ${FRAMEWORKS_DOC} and in its package README`,
      );
    }
  }
  return problems;
}

/** Where a block is written in the program: its page's folder, then its own name. */
function programPath(block) {
  const page = block.file.replace(/[/.]/g, '_');
  return `${page}/${block.kind === 'file' ? block.path : `line-${block.line}.ts`}`;
}

/** Writes each block as a module, and the program's tsconfig; returns the map back. */
function writeProgram(blocks) {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT);
  // Packages resolve from pnpm's hoisted folder, which holds every workspace package and
  // dependency: the snippets see the packages as an installed app does, by their `exports`.
  symlinkSync(join(ROOT, 'node_modules', '.pnpm', 'node_modules'), join(OUT, 'node_modules'));
  // Inside the program's folder, so that its `npm:` modules resolve the packages from there.
  copyFileSync(GLOBALS, join(OUT, 'globals.d.ts'));
  const sources = new Map();
  for (const block of blocks) {
    const path = programPath(block);
    mkdirSync(dirname(join(OUT, path)), { recursive: true });
    // `export {}` makes every block a module of its own, so blocks may reuse names.
    writeFileSync(join(OUT, path), `${block.code}\nexport {};\n`);
    sources.set(path, block);
  }
  // A new Node app's settings, strict as the docs recommend (Fetch types from @types/node, no
  // DOM); packages resolved as bundlers (Next.js, Wrangler, Vite) and Node's ESM do: by their
  // `exports`.
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2022'],
      module: 'Preserve',
      moduleResolution: 'Bundler',
      strict: true,
      skipLibCheck: true,
      noEmit: true,
      types: ['node'],
    },
    include: ['**/*.ts'],
  };
  writeFileSync(join(OUT, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  return sources;
}

/** Runs tsc over the program; returns its errors, each pointing at the markdown line. */
function compileErrors(sources) {
  try {
    execFileSync(process.execPath, [TSC, '-p', OUT, '--pretty', 'false'], { encoding: 'utf8' });
    return [];
  } catch (failure) {
    const error = /** @type {{ stdout?: string, stderr?: string }} */ (failure);
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`;
    return output
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const located = /^([^(]+)\((\d+),(\d+)\): (.*)$/.exec(line);
        const block = located && sources.get(relative(OUT, join(ROOT, located[1])));
        if (!block) return line;
        return `${block.file}:${block.line + Number(located[2]) - 1}:${located[3]}: ${located[4]}`;
      });
  }
}

const built = existsSync(join(ROOT, 'packages', 'core', 'dist', 'index.d.ts'));
if (!built && !process.argv.includes('--if-built')) {
  console.error('doc snippets: the packages are not built; run `pnpm build` first.');
  process.exit(1);
}
const started = performance.now();
if (process.argv.includes('--write-recipes')) writeRecipes(markdownFiles().flatMap(blocksOf));
const blocks = markdownFiles().flatMap(blocksOf);
// A recipe is its example's file, which `pnpm typecheck` compiles and the example's test runs.
const compiled = blocks.filter((block) => block.kind === 'checked' || block.kind === 'file');
const problems = [
  ...recipeProblems(blocks),
  ...(built ? compileErrors(writeProgram(compiled)) : []),
];
const seconds = ((performance.now() - started) / 1000).toFixed(1);
for (const problem of problems) console.error(problem);
const recipes = blocks.filter((block) => block.kind === 'recipe').length;
const skipped = blocks.length - compiled.length - recipes;
const compiledNote = built
  ? `${compiled.length} TypeScript blocks compiled`
  : `${compiled.length} TypeScript blocks NOT compiled (the packages are not built: pnpm build, then pnpm check:docs)`;
console.log(
  `${problems.length === 0 ? 'ok    ' : 'FAILED'} doc snippets: ${compiledNote}, ${recipes} recipes equal to their examples, ${skipped} fragments skipped (${seconds} s)`,
);
process.exitCode = problems.length === 0 ? 0 : 1;
