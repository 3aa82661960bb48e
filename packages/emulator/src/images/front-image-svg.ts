import { createHash } from 'node:crypto';

/**
 * A placeholder portrait standing in for the captured front image. Its colours come from the
 * image id, so different sessions are told apart at a glance; it carries no personal data.
 */
export function renderFrontImageSvg(imageId: string): string {
  const digest = createHash('sha256').update(imageId).digest();
  const hue = digest.readUInt16BE(0) % 360;
  const skin = 25 + ((digest[2] ?? 0) % 20);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="400" viewBox="0 0 320 400" role="img" aria-label="Simulated front image">
  <rect width="320" height="400" fill="hsl(${hue} 45% 85%)"/>
  <ellipse cx="160" cy="170" rx="78" ry="96" fill="hsl(${skin} 50% 70%)"/>
  <path d="M40 400c10-90 60-130 120-130s110 40 120 130z" fill="hsl(${hue} 35% 45%)"/>
  <circle cx="130" cy="160" r="8" fill="#2b2b2b"/>
  <circle cx="190" cy="160" r="8" fill="#2b2b2b"/>
  <path d="M132 215q28 22 56 0" stroke="#2b2b2b" stroke-width="6" fill="none" stroke-linecap="round"/>
  <text x="160" y="30" font-family="sans-serif" font-size="16" text-anchor="middle" fill="#333">faceverify emulator</text>
</svg>
`;
}
