import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderBanner } from '../src/cli/banner.js';
import { type Emulator, startEmulator } from '../src/index.js';

// The docs a newcomer reads, checked against what they describe: the service's interface,
// the emulator's banner, the repository's own pnpm. What is stated twice drifts; these fail
// as soon as one copy does.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

function markdownFiles(): string[] {
  const inFolder = (folder: string, name = (file: string) => file.endsWith('.md')) =>
    readdirSync(join(ROOT, folder))
      .filter(name)
      .map((file) => join(folder, file));
  const readmes = (parent: string) =>
    readdirSync(join(ROOT, parent))
      .map((folder) => join(parent, folder, 'README.md'))
      .filter((file) => existsSync(join(ROOT, file)));
  return ['README.md', ...inFolder('docs'), ...readmes('packages'), ...readmes('examples')];
}

const docs = markdownFiles().map((file) => ({
  file,
  text: readFileSync(join(ROOT, file), 'utf8'),
}));

/** Each match of `pattern` in the docs, as `file:line: text`. */
function occurrences(pattern: RegExp): string[] {
  const found: string[] = [];
  for (const { file, text } of docs) {
    text.split('\n').forEach((line, index) => {
      if (pattern.test(line)) found.push(`${file}:${index + 1}: ${line.trim()}`);
    });
  }
  return found;
}

describe('the docs agree with the service interface', () => {
  // Interface §6.1: "There is no automatic retry." A missed webhook is recovered by polling.
  it('never say the service sends a webhook again', () => {
    const retryClaim =
      /\b(the service|it) (retries|will retry|resends|redelivers|sends (it|the webhook) again)\b|\bservice retries\b|\bretries (the|a) (failed )?(webhook|delivery)\b/i;
    expect(occurrences(retryClaim)).toEqual([]);
  });
});

describe('the docs agree with the emulator', () => {
  let emulator: Emulator;
  let banner: string;
  beforeAll(async () => {
    emulator = await startEmulator({
      seed: 'docs-agree',
      callbackUrl: 'http://127.0.0.1:3000/webhooks/verification',
    });
    banner = renderBanner(emulator);
  });
  afterAll(() => emulator?.close());

  const bannerVariables = () => [...banner.matchAll(/^ {2}(FACEVERIFY_\w+)=/gm)].map((m) => m[1]);

  it("show the emulator's banner as it prints it (packages/emulator/README.md)", () => {
    const readme = readFileSync(join(ROOT, 'packages/emulator/README.md'), 'utf8');
    const sample = /It prints what to configure your application with:\n\n```\n([\s\S]*?)```/.exec(
      readme,
    )?.[1];
    const asDocumented = banner
      .replace(/^faceverify emulator \S+/, 'faceverify emulator 0.1.0')
      .replaceAll(emulator.url, 'http://127.0.0.1:4010')
      .replaceAll(emulator.apiKey, 'fv_test_3f2a…')
      .replaceAll(emulator.signingSecret, 'whsec_9c41…');
    expect(sample).toBe(asDocumented);
  });

  it('export, in every block that sets FACEVERIFY_BASE_URL, each variable the banner prints', () => {
    const expected = bannerVariables();
    expect(expected).toContain('FACEVERIFY_POLL_SCHEDULE_MS');
    const blocks = docs.flatMap(({ file, text }) =>
      [...text.matchAll(/```\w*\n([\s\S]*?)```/g)]
        .map((block) => block[1] ?? '')
        .filter((block) => /^(export | {2})?FACEVERIFY_BASE_URL=/m.test(block))
        .map((block) => ({
          file,
          names: [...block.matchAll(/^(?:export | {2})?(FACEVERIFY_\w+)=/gm)].map((m) => m[1]),
        })),
    );
    expect(blocks.length).toBeGreaterThan(5);
    for (const { file, names } of blocks) expect(names, file).toEqual(expected);
  });

  it('count the variables the emulator prints as it prints them', () => {
    const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven'];
    const count = words[bannerVariables().length];
    const counted = occurrences(
      /\b(one|two|three|four|five|six|seven)\b[^.]{0,40}\b(variables|`FACEVERIFY_…` lines)\b[^.]{0,40}\bprint|\bprints (all )?(one|two|three|four|five|six|seven)\b([^.]{0,20}\bvariables|\))/i,
    );
    expect(counted.filter((line) => !line.toLowerCase().includes(` ${count} `))).toEqual([]);
  });
});

describe('the docs agree with the repository', () => {
  const packageManager = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
    .packageManager as string;

  it(`name pnpm as package.json's packageManager does (${packageManager})`, () => {
    const version = packageManager.replace(/^pnpm@/, '');
    const other = occurrences(/pnpm@/).filter((line) =>
      [...line.matchAll(/pnpm@([\w.]+)/g)].some((m) => m[1] !== version),
    );
    expect(other).toEqual([]);
  });

  it('need no second pnpm install: every command links at install, before the build', () => {
    for (const folder of readdirSync(join(ROOT, 'packages'))) {
      const manifest = join(ROOT, 'packages', folder, 'package.json');
      if (!existsSync(manifest)) continue;
      const bin = (JSON.parse(readFileSync(manifest, 'utf8')).bin ?? {}) as Record<string, string>;
      for (const target of Object.values(bin)) {
        const path = relative(ROOT, join(ROOT, 'packages', folder, target));
        expect(path, 'a committed launcher, not a built file').not.toMatch(/\/dist\//);
        expect(existsSync(join(ROOT, path)), path).toBe(true);
      }
    }
    expect(occurrences(/pnpm build && pnpm install|second install/)).toEqual([]);
  });
});
