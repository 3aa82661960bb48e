import { readFileSync } from 'node:fs';
import { RelayConfigError } from './relay-config-error.js';

/** The relay's settings by name (`FACEVERIFY_SINKS`, ...), as strings. */
export type RelaySettings = Readonly<Record<string, string | undefined>>;

/** The variable naming the optional JSON file of settings. */
export const CONFIG_FILE_SETTING = 'FACEVERIFY_RELAY_CONFIG';

/**
 * The settings: those of the JSON file named by `FACEVERIFY_RELAY_CONFIG` (an object of the
 * same names as the environment variables, each a string, number or boolean), overridden by
 * the environment. Blank values count as unset.
 */
export function readSettings(env: NodeJS.ProcessEnv = process.env): RelaySettings {
  const settings: Record<string, string | undefined> = {};
  const file = env[CONFIG_FILE_SETTING]?.trim();
  if (file) Object.assign(settings, readSettingsFile(file));
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.trim() !== '') settings[name] = value.trim();
  }
  return settings;
}

function readSettingsFile(path: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code ?? 'unreadable';
    throw new RelayConfigError(
      CONFIG_FILE_SETTING,
      `${CONFIG_FILE_SETTING} names a file that cannot be read (${code}): give the path of a JSON file of settings, or unset it to configure by environment variables alone.`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new RelayConfigError(
      CONFIG_FILE_SETTING,
      `The file named by ${CONFIG_FILE_SETTING} is not a JSON object: write it as {"FACEVERIFY_SINKS": "redis", ...}, with the names of the environment variables.`,
    );
  }
  const settings: Record<string, string> = {};
  for (const [name, value] of Object.entries(parsed)) {
    if (!['string', 'number', 'boolean'].includes(typeof value)) {
      throw new RelayConfigError(
        name,
        `${name} in the file named by ${CONFIG_FILE_SETTING} must be a string, a number or a boolean.`,
      );
    }
    const text = String(value).trim();
    if (text !== '') settings[name] = text;
  }
  return settings;
}
