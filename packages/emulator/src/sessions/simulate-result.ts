import type { RandomSource } from '../random.js';
import type { Outcome, SimulatedResult } from './session-record.js';

interface OutcomeProfile {
  result: Omit<SimulatedResult, 'confidence'>;
  /** Range of the simulated confidence, on a 0 to 1 scale. */
  confidence: readonly [number, number];
}

const PROFILES: Record<Outcome, OutcomeProfile> = {
  verified: {
    result: {
      status: 'verified',
      livenessPassed: true,
      duplicate: false,
      risk: 'low',
      reason: null,
    },
    confidence: [0.9, 0.99],
  },
  liveness_failed: {
    result: {
      status: 'failed',
      livenessPassed: false,
      duplicate: false,
      risk: 'medium',
      reason: 'liveness_check_failed',
    },
    confidence: [0.15, 0.45],
  },
  // The face matches well: it is the same face as on another account.
  duplicate: {
    result: {
      status: 'failed',
      livenessPassed: true,
      duplicate: true,
      risk: 'medium',
      reason: 'duplicate_face',
    },
    confidence: [0.88, 0.98],
  },
  high_risk: {
    result: {
      status: 'failed',
      livenessPassed: true,
      duplicate: false,
      risk: 'high',
      reason: 'high_risk',
    },
    confidence: [0.55, 0.8],
  },
};

/** The result a real check could have produced for the chosen outcome. */
export function simulateResult(outcome: Outcome, random: RandomSource): SimulatedResult {
  const profile = PROFILES[outcome];
  const [low, high] = profile.confidence;
  const confidence = Math.round((low + (high - low) * random.next()) * 1000) / 1000;
  return { ...profile.result, confidence };
}
