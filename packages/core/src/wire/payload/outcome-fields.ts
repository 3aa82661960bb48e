/**
 * The fields of a result that say what it was: the same in its webhook and in what polling
 * tells of it, and shared by a replay of it.
 */
export const OUTCOME_FIELDS = [
  'status',
  'confidence',
  'livenessPassed',
  'duplicate',
  'risk',
  'reason',
] as const;
