import type { WriteStream } from 'node:tty';

const STYLES = {
  bold: [1, 22],
  dim: [2, 22],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
} as const;

export type Style = keyof typeof STYLES;

/** Where the demo narrates: styled when a person watches, plain in logs and CI. */
export interface Terminal {
  readonly color: boolean;
  style(style: Style, text: string): string;
  line(text?: string): void;
  /** A step's action or observation, indented under its heading. */
  info(text: string): void;
  warn(text: string): void;
}

function wantsColor(stream: Pick<WriteStream, 'isTTY'>, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true;
}

export function createTerminal(
  stream: NodeJS.WriteStream = process.stdout,
  env: NodeJS.ProcessEnv = process.env,
): Terminal {
  const color = wantsColor(stream, env);
  const style = (name: Style, text: string) => {
    const [open, close] = STYLES[name];
    return color ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  };
  const line = (text = '') => {
    stream.write(`${text}\n`);
  };
  return {
    color,
    style,
    line,
    info: (text) => line(`  ${style('dim', '→')} ${text}`),
    warn: (text) => line(`  ${style('yellow', '!')} ${text}`),
  };
}
