import type { VerificationPayload } from '@faceverify/core';
import type { RandomSource } from '../random.js';

/** A webhook body as the service sends it: the typed fields, no `extra` of a parsed payload. */
export type WebhookBody = Omit<VerificationPayload, 'extra'>;

type Layout = 'compact' | 'indented' | 'tabbed' | 'reordered';

const LAYOUTS: readonly Layout[] = ['compact', 'indented', 'tabbed', 'reordered'];

function shuffled<T>(items: readonly T[], random: RandomSource): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(random.next() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}

/**
 * Writes a webhook body in one of several equivalent JSON layouts: compact, indented with
 * spaces or tabs, or with its keys in another order. A receiver that verifies the signature
 * over anything but the exact bytes it received (say, a re-serialized parsed object) then
 * fails visibly, as it would against the real service.
 */
export function serializeWebhookBody(payload: WebhookBody, random: RandomSource): string {
  const layout = LAYOUTS[Math.floor(random.next() * LAYOUTS.length)] ?? 'compact';
  switch (layout) {
    case 'compact':
      return JSON.stringify(payload);
    case 'indented':
      return JSON.stringify(payload, null, 2);
    case 'tabbed':
      return `${JSON.stringify(payload, null, '\t')}\n`;
    case 'reordered': {
      const keys = shuffled(Object.keys(payload), random);
      const fields = payload as unknown as Record<string, unknown>;
      return JSON.stringify(Object.fromEntries(keys.map((key) => [key, fields[key]])));
    }
  }
}
