import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { expect, it } from 'vitest';

// On Node 20 (V8 11.3), an object literal that starts with a spread and then gives the copy a
// property its source did not have (`{ ...result, confirmed: true }`, `{ ...a, ...b }`)
// allocates that property's storage in the old generation: garbage that only a full
// mark-compact collects. One such literal on the path of every request turned a flood of
// unsigned webhooks from one full collection in 40,000 requests into one every 6,000 (a
// third more CPU per request over HTTP); Node 22 does not do it. A property the source
// always has (`{ ...payload, frontImageUrl: '' }`) costs nothing, nor does a literal whose
// own properties come first (`{ name, ...happened }`), nor `Object.assign({}, a, b)`.
// An object literal with a getter (`{ get account() { … } }`) does the same with its accessor.
// So the packages that run per request have neither literal, but where a comment says it is
// built once, "not per request" (a Receiver's context, an adapter's middleware).
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RUNTIME_PACKAGES = [
  'core',
  'express',
  'koa',
  'hono',
  'fastify',
  'fetch',
  'redis',
  'postgres',
  'shared-sql',
  'cloudflare',
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : sources(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The names of the properties `type` always has (not optional). */
function requiredNames(checker: ts.TypeChecker, type: ts.Type): Set<string> {
  return new Set(
    checker
      .getPropertiesOfType(type)
      .filter((symbol) => (symbol.flags & ts.SymbolFlags.Optional) === 0)
      .map((symbol) => symbol.name),
  );
}

/** What a literal's member gives the object: the names of its properties. */
function namesOf(checker: ts.TypeChecker, member: ts.ObjectLiteralElementLike): string[] {
  if (ts.isSpreadAssignment(member)) {
    const type = checker.getTypeAtLocation(member.expression);
    // Each branch of `...(cond ? {} : { user })` may add its own.
    const branches = type.isUnion() ? type.types : [type];
    // A generic's properties are not known here: it may add any.
    if (branches.some((t) => t.flags & ts.TypeFlags.Instantiable)) {
      return [`...${member.expression.getText()}`];
    }
    return [...new Set(branches.flatMap((t) => checker.getPropertiesOfType(t).map((s) => s.name)))];
  }
  const symbol = checker.getSymbolAtLocation(member.name ?? member);
  return [symbol?.name ?? member.getText()];
}

/** Whether a comment before `node`, or before what holds it up to its statement, says "not per request". */
function builtOnce(node: ts.Node, text: string): boolean {
  for (let at: ts.Node | undefined = node; at; at = at.parent) {
    const comments = ts.getLeadingCommentRanges(text, at.getFullStart()) ?? [];
    if (comments.some(({ pos, end }) => text.slice(pos, end).includes('not per request'))) {
      return true;
    }
    if (ts.isStatement(at)) return false;
  }
  return false;
}

/**
 * Literals of `file` that start with a spread and may add a property its source lacks, or
 * that have a getter.
 */
function oldGenerationLiterals(checker: ts.TypeChecker, file: ts.SourceFile): string[] {
  const found: string[] = [];
  const where = (node: ts.Node) =>
    `${relative(ROOT, file.fileName)}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node): void => {
    if (
      ts.isObjectLiteralExpression(node) &&
      node.properties.some(ts.isGetAccessorDeclaration) &&
      !builtOnce(node, file.text)
    ) {
      found.push(`${where(node)} has a getter`);
    }
    if (ts.isObjectLiteralExpression(node) && node.properties.length > 1) {
      const [first, ...rest] = node.properties;
      if (first && ts.isSpreadAssignment(first)) {
        const has = requiredNames(checker, checker.getTypeAtLocation(first.expression));
        const added = rest.flatMap((member) => namesOf(checker, member)).filter((n) => !has.has(n));
        if (added.length > 0 && !builtOnce(node, file.text)) {
          found.push(`${where(node)} adds ${added.join(', ')}`);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/**
 * What the check finds in each of `samples`, each a module of one program (one program, as
 * loading the standard library for each sample took seconds); found places name `sample.ts`.
 */
function findInEach(samples: readonly string[]): string[][] {
  const names = samples.map((_, i) => join(ROOT, 'packages', 'module-formats', `sample-${i}.ts`));
  const host = ts.createCompilerHost({ strict: true, noEmit: true });
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (file, ...rest) => {
    const index = names.indexOf(file);
    return index < 0
      ? read(file, ...rest)
      : ts.createSourceFile(file, samples[index]!, ts.ScriptTarget.ES2022, true);
  };
  const program = ts.createProgram(names, { strict: true, noEmit: true, types: [] }, host);
  const checker = program.getTypeChecker();
  return names.map((name) =>
    oldGenerationLiterals(checker, program.getSourceFile(name)!).map((found) =>
      found.replace(/sample-\d+\.ts/, 'sample.ts'),
    ),
  );
}

it('finds a copy given a property its source may lack, and a getter in a literal, and nothing else', () => {
  const declarations =
    'declare const a: { x: number; y?: number }; declare const b: { z: number };';
  const cases: [string, string[]][] = [
    ['export const c = { ...a, y: 1 };', ['packages/module-formats/sample.ts:1 adds y']],
    ['export const c = { ...a, ...b };', ['packages/module-formats/sample.ts:1 adds z']],
    [
      'export const c = { ...a, ...(b.z ? {} : { w: 1 }) };',
      ['packages/module-formats/sample.ts:1 adds w'],
    ],
    [
      'export const f = <E extends object>(e?: E) => ({ ...a, ...e });',
      ['packages/module-formats/sample.ts:1 adds ...e'],
    ],
    ['export const c = { ...a, x: 2 };', []],
    ['export const c = { z: 1, ...a };', []],
    ['export const c = Object.assign({}, a, b);', []],
    [
      'export const c = { x: 1, get y() { return 2; } };',
      ['packages/module-formats/sample.ts:1 has a getter'],
    ],
    ['export class C { get y() { return 2; } }', []],
    ['\n// Built once, not per request.\nexport const c = { ...a, ...b };', []],
  ];
  const found = findInEach(cases.map(([sample]) => `${declarations} ${sample}`));
  expect(found).toEqual(cases.map(([, expected]) => expected));
});

it('no literal run per request copies an object by spread and then adds a property, or has a getter', () => {
  const files = RUNTIME_PACKAGES.flatMap((name) => sources(join(ROOT, 'packages', name, 'src')));
  expect(files.length).toBeGreaterThan(100);
  const program = ts.createProgram(files, {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
  });
  const checker = program.getTypeChecker();
  const found = files.flatMap((path) =>
    oldGenerationLiterals(checker, program.getSourceFile(path)!),
  );
  expect(
    found,
    'write the added properties first, or use Object.assign({}, source, added)',
  ).toEqual([]);
});
