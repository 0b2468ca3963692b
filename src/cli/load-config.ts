/** Turns the common flags (--config, --port, --data-dir, …) into an effective configuration. */
import { resolveConfig, readConfigFile, type HeraldConfig, type ConfigOverrides } from '../config/config.js';

/** Reads `--config` if given and applies flag overrides. */
export function loadConfig(configPath: string | undefined, overrides: ConfigOverrides): HeraldConfig {
  const raw = configPath === undefined ? undefined : readConfigFile(configPath);
  return resolveConfig(raw, overrides);
}
