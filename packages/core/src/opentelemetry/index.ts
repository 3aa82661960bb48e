/**
 * Metrics and traces of the Receiver through `@opentelemetry/api`, an optional peer dependency:
 * only this entry imports it, so the main entry loads without it.
 *
 * @module @faceverify/core/opentelemetry
 */

export { type OpenTelemetryOptions, openTelemetry } from './open-telemetry.js';
