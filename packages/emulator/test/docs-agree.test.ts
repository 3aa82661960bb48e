import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVELOPMENT_POLL_SCHEDULE_MS, renderBanner } from '../src/cli/banner.js';
import { type Emulator, startEmulator } from '../src/index.js';

// The docs a newcomer reads, checked against what they describe: the service's interface,
// the emulator's banner, the repository's own pnpm. What is stated twice drifts; these fail
// as soon as one copy does.
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** `createReceiver`'s default `sweepIntervalMs`, which the docs name. */
const DEFAULT_SWEEP_INTERVAL_MS = 5_000;

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

// A new paragraph starts after a blank line, and at a heading, a list item, a quote, a table
// row or a fence; inside a fenced block each line stands alone.
const STARTS_PARAGRAPH = /^\s*(#|[-*+] |\d+\. |>|\||```)/;

/**
 * The paragraphs of a markdown text, each with its lines joined by one space: a claim wrapped
 * over two lines is matched as a reader reads it.
 */
function paragraphsOf(text: string): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = [];
  let open: { line: number; lines: string[] } | undefined;
  const close = () => {
    if (open) found.push({ line: open.line, text: open.lines.join(' ') });
    open = undefined;
  };
  let fenced = false;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    const fence = line.startsWith('```');
    if (line === '' || fenced || fence || STARTS_PARAGRAPH.test(raw)) close();
    if (fence) fenced = !fenced;
    if (line === '') return;
    if (open) open.lines.push(line);
    else open = { line: index + 1, lines: [line] };
    // A table row, a fence and a line of code end where they end.
    if (fenced || fence || line.startsWith('|')) close();
  });
  close();
  return found;
}

const paragraphs = docs.flatMap(({ file, text }) =>
  paragraphsOf(text).map((paragraph) => ({ file, ...paragraph })),
);

/** Each paragraph of the docs that `pattern` matches, as `file:line: text`. */
function occurrences(pattern: RegExp): string[] {
  return paragraphs
    .filter(({ text }) => new RegExp(pattern.source, pattern.flags.replace('g', '')).test(text))
    .map(({ file, line, text }) => `${file}:${line}: ${text}`);
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
    // A Receiver of several accounts takes each account's key and secret from elsewhere (its
    // accounts option), and a token key of its own instead: the banner's other variables still.
    const perAccount = ['FACEVERIFY_API_KEY', 'FACEVERIFY_WEBHOOK_SECRET'];
    const severalAccounts = [
      ...expected.filter((name) => !perAccount.includes(name!)),
      'FACEVERIFY_TOKEN_KEYS',
    ].sort();
    for (const { file, names } of blocks) {
      if (names.includes('FACEVERIFY_TOKEN_KEYS') && !names.includes('FACEVERIFY_WEBHOOK_SECRET')) {
        expect([...names].sort(), file).toEqual(severalAccounts);
      } else expect(names, file).toEqual(expected);
    }
  });

  it('say how soon a dropped webhook is recovered as the development poll schedule has it', () => {
    const firstPollS = Number(DEVELOPMENT_POLL_SCHEDULE_MS.split(',')[0]) / 1000;
    // A poll runs at the first sweep once due: up to `sweepIntervalMs` (5 s by default) late,
    // as recovery-timing.test.ts shows on the Receiver itself.
    const latestS = firstPollS + DEFAULT_SWEEP_INTERVAL_MS / 1000;
    // The paragraphs about the emulator's schedule (the demo's own schedule is another).
    const aboutSchedule = paragraphs.filter(({ text }) =>
      /FACEVERIFY_POLL_SCHEDULE_MS|`FACEVERIFY_(…` lines|\*` variables)/.test(text),
    );
    const claims = aboutSchedule.flatMap(({ file, line, text }) =>
      [
        ...text.matchAll(/\b(?:(\d+) to )?(\d+) s (later|after (?:its|the session's) start)\b/gi),
      ].map((match) => ({
        where: `${file}:${line}: ${match[0]}`,
        from: match[1] === undefined ? undefined : Number(match[1]),
        seconds: Number(match[2]),
        later: match[3] === 'later',
      })),
    );
    expect(claims.length).toBeGreaterThan(4);
    // Polls are timed from the session's start: "N s later", after a completion, is untrue
    // (the result comes at the first poll after it, which may be 30 s away).
    expect(claims.filter(({ later }) => later).map(({ where }) => where)).toEqual([]);
    expect(
      claims
        .filter(({ from, seconds }) =>
          from === undefined ? seconds !== firstPollS : from !== firstPollS || seconds !== latestS,
        )
        .map(({ where }) => where),
    ).toEqual([]);
    const printed = occurrences(/FACEVERIFY_POLL_SCHEDULE_MS=\d/).filter(
      (where) => !where.includes(`FACEVERIFY_POLL_SCHEDULE_MS=${DEVELOPMENT_POLL_SCHEDULE_MS}`),
    );
    // hono-cloudflare's `=0` polls at once from a cron: not the banner's value.
    expect(printed.filter((where) => !where.includes('FACEVERIFY_POLL_SCHEDULE_MS=0`'))).toEqual(
      [],
    );
  });

  it('count the variables the emulator prints as it prints them', () => {
    const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven'];
    const count = words[bannerVariables().length];
    const counted = occurrences(
      /\b(one|two|three|four|five|six|seven)\b[^.]{0,40}\b(variables|`FACEVERIFY_…` lines)\b[^.]{0,40}\bprint|\bprints (all )?(one|two|three|four|five|six|seven)\b([^.]{0,20}\bvariables|\))/i,
    );
    expect(counted.filter((line) => !line.toLowerCase().includes(` ${count} `))).toEqual([]);
  });

  it('count, in getting-started.md, the `FACEVERIFY_…` lines and the variables as the banner prints them', () => {
    const words = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'];
    const count = words[bannerVariables().length];
    const guide = paragraphs.filter(({ file }) => file === join('docs', 'getting-started.md'));
    expect(guide.length).toBeGreaterThan(10);
    const wrong = guide.flatMap(({ line, text }) =>
      [
        ...text.matchAll(
          /\b(zero|one|two|three|four|five|six|seven|eight)\s+(?:\S+\s+){0,2}?(?:variables|`FACEVERIFY_…` lines)\b/gi,
        ),
      ]
        .filter((match) => match[1]?.toLowerCase() !== count)
        .map((match) => `docs/getting-started.md:${line}: ${match[0]}`),
    );
    expect(wrong).toEqual([]);
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
