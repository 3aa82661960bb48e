import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const EXAMPLE = join(import.meta.dirname, '..');
const ROOT = join(EXAMPLE, '..', '..');
const RECIPE_FILES = ['lib/faceverify.ts', 'app/api/webhooks/verification/route.ts'];
const DOCS = ['packages/fetch/README.md', 'docs/frameworks.md'];

/** The ```ts blocks of a Markdown file that open with `// <path>`, by that path. */
function blocksByPath(markdown: string): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const [, body] of markdown.matchAll(/```ts\n([\s\S]*?)```/g)) {
    const [first, ...rest] = (body ?? '').split('\n');
    const path = /^\/\/ (\S+)$/.exec(first ?? '')?.[1];
    if (path) blocks.set(path, rest.join('\n'));
  }
  return blocks;
}

// `next build` in example.test.ts compiles these files; the docs show them as they are, so
// the recipe a reader copies is the one that builds and runs.
it.each(DOCS)('the Next.js recipe in %s is the example’s files, verbatim', (doc) => {
  const blocks = blocksByPath(readFileSync(join(ROOT, doc), 'utf8'));
  for (const file of RECIPE_FILES) {
    expect(blocks.get(file), `${doc}: a \`// ${file}\` block`).toBe(
      readFileSync(join(EXAMPLE, file), 'utf8'),
    );
  }
});
