import { FLAGS, type FlagSpec } from './flags.js';

const WIDTH = 34;
const LINE = 100;

/** Wraps `text` to lines of at most `LINE` characters, each indented by `indent` spaces. */
function wrap(text: string, indent: number): string {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && indent + line.length + 1 + word.length > LINE) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  lines.push(line);
  return lines.join(`\n${' '.repeat(indent)}`);
}

function usageOf(flag: FlagSpec): string {
  return flag.value === null ? `--${flag.name}` : `--${flag.name} ${flag.value}`;
}

/** The `--help` text, generated from the flag list so that no flag can be missing from it. */
export function renderHelp(): string {
  const lines = FLAGS.map((flag) => {
    const usage = usageOf(flag).padEnd(WIDTH);
    const env = flag.env === null ? '' : `\n${' '.repeat(WIDTH + 2)}env ${flag.env}`;
    return `  ${usage}${wrap(flag.description, WIDTH + 2)}${env}`;
  });
  return `faceverify-emulator: a local emulator of the face verification service.

Usage: faceverify-emulator [flags]

It serves the /v1 API, the hosted verification page and signed webhooks on one port, and
prints the base URL, API key and signing secret to configure your application with.

Flags (each flag can also be set by the environment variable shown; a flag wins):
${lines.join('\n')}

Durations are milliseconds, or a number with a unit: 500ms, 30s, 15m, 1h.

Control endpoints, while it runs (no credentials: keep the emulator on a private address):
  GET  /__emulator/stats      webhooks sent, dropped, duplicated, corrupted; sessions by state
  GET  /__emulator/faults     faults now on
  PUT  /__emulator/faults     replace faults, e.g. {"dropWebhooks":0.2,"poll429":{"next":3}}
  GET  /__emulator/settings   the callback URL (?account=<id>: of that account, else the first)
  PUT  /__emulator/settings   {"callbackUrl":"http://127.0.0.1:3000/webhooks"}, ?account=<id> too
  GET  /__emulator/health     {"ok":true}
  GET  /__emulator/inspector  a page: sessions, every webhook attempt, resend, next-webhook faults
  GET  /__emulator/sessions   the inspector's data; POST /__emulator/sessions/<id>/resend

Examples:
  faceverify-emulator --callback-url http://127.0.0.1:3000/webhooks/verification
  faceverify-emulator --port 0 --drop-webhooks 0.3 --poll-429 next:5 --seed demo
`;
}
