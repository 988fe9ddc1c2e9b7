// The version printed by `kurz --version`, taken from package.json when bundled.
import pkg from '../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;
