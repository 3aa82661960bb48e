import packageJson from '../package.json' with { type: 'json' };

/** The emulator's own version, shown by the CLI and sent in the webhook `User-Agent`. */
export const EMULATOR_VERSION: string = packageJson.version;
