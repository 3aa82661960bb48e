#!/usr/bin/env node
// Counts each framework adapter's own logic: non-blank, non-comment source lines of its
// src, leaving out type-only declarations (interfaces, type aliases, `import type`,
// `export type`, `declare`). The request flow lives in core's pipeline; an adapter over
// the budget has grown logic that belongs there. Exits 1 when one is over.
//
// usage: node scripts/adapter-size.mjs [--max=60]
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ADAPTERS = ['express', 'koa', 'hono', 'fastify', 'fetch'];
const { values } = parseArgs({
  options: { max: { type: 'string', default: '60' }, verbose: { type: 'boolean', default: false } },
});
const max = Number(values.max);

function isTypeOnly(statement) {
  if (ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement)) return true;
  if (ts.isImportDeclaration(statement)) return statement.importClause?.isTypeOnly === true;
  if (ts.isExportDeclaration(statement)) return statement.isTypeOnly;
  if (ts.isModuleDeclaration(statement)) return true;
  return (ts.getModifiers(statement) ?? []).some((m) => m.kind === ts.SyntaxKind.DeclareKeyword);
}

/** Lines of `text` holding code once comments are blanked out. */
function codeLines(source, start, end) {
  const text = source.text.slice(start, end);
  const scanner = ts.createScanner(
    ts.ScriptTarget.Latest,
    false,
    ts.LanguageVariant.Standard,
    text,
  );
  let stripped = '';
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    const token = scanner.getTokenText();
    const comment =
      kind === ts.SyntaxKind.SingleLineCommentTrivia ||
      kind === ts.SyntaxKind.MultiLineCommentTrivia;
    stripped += comment ? token.replace(/[^\n]/g, ' ') : token;
  }
  return stripped.split('\n').filter((line) => line.trim() !== '').length;
}

function countFile(path) {
  const source = ts.createSourceFile(
    path,
    readFileSync(path, 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  let lines = 0;
  for (const statement of source.statements) {
    if (!isTypeOnly(statement))
      lines += codeLines(source, statement.getStart(), statement.getEnd());
  }
  return lines;
}

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

let over = false;
for (const adapter of ADAPTERS) {
  const dir = join(ROOT, 'packages', adapter, 'src');
  if (!existsSync(dir)) continue;
  const files = sourceFiles(dir);
  let total = 0;
  for (const file of files) {
    const lines = countFile(file);
    total += lines;
    if (values.verbose) console.log(`  ${String(lines).padStart(4)} ${file.slice(ROOT.length)}`);
  }
  const verdict = total <= max ? 'ok' : `over ${max}`;
  if (total > max) over = true;
  console.log(`${adapter.padEnd(8)} ${String(total).padStart(4)} lines of logic (${verdict})`);
}
process.exit(over ? 1 : 0);
