import type { TsdownHooks } from 'tsdown';

/**
 * The first line where a JSDoc comment follows code (`a: number; /** b *\/`): TypeScript
 * attaches a JSDoc comment only to what follows it from a later line on, so editors show no
 * documentation for the member it was written for.
 */
function misplacedJsdoc(code: string): string | undefined {
  for (const line of code.split('\n')) {
    const text = line.trim();
    if (text.startsWith('*') || text.startsWith('//')) continue;
    // A comment that opens the line documents what follows it: look after it.
    const rest = text.startsWith('/**') ? text.slice(text.indexOf('*/') + 2) : text;
    if (rest.includes('/**')) return text;
  }
  return undefined;
}

/**
 * Fails the build when a declaration file holds a JSDoc comment moved onto the line of the
 * member before it. rolldown-plugin-dts 0.23 (the last release that runs on Node.js 20) does
 * this to single-line comments on members of object types and unions
 * (sxzz/rolldown-plugin-dts#182); comments written over several lines keep their place.
 */
export const failOnMisplacedJsdoc: TsdownHooks['build:done'] = ({ chunks }) => {
  for (const chunk of chunks) {
    if (chunk.type !== 'chunk' || !/\.d\.c?ts$/.test(chunk.fileName)) continue;
    const found = misplacedJsdoc(chunk.code);
    if (found === undefined) continue;
    throw new Error(
      `${chunk.fileName}: a JSDoc comment lost its member in the declarations:\n  ${found}\n` +
        'Write that comment in the source over several lines (/**, the text, */ on lines of their own).',
    );
  }
};
