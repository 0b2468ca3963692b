/**
 * One strict Liquid engine per locale: `strictVariables` (an undefined variable is an error,
 * never an empty string in a customer's inbox), `strictFilters` (an unknown filter is a parse
 * error, caught when the version is saved), and the locale's Intl filters. HTML parts are not
 * auto-escaped by Liquid; a template that puts producer data into HTML uses `| escape`
 * (docs/templates.md says so).
 */
import { Liquid } from 'liquidjs';
import { registerLocaleFilters } from './locale-filters.js';

const engines = new Map<string, Liquid>();

/** The engine for a locale tag (cached: a handful of locales per deployment). */
export function engineFor(locale: string): Liquid {
  const key = locale.toLowerCase();
  let engine = engines.get(key);
  if (!engine) {
    // `templates: {}` replaces the file system with an empty in-memory one: {% include %} and
    // {% render %} find nothing, so a template cannot read the server's files.
    engine = new Liquid({ strictVariables: true, strictFilters: true, ownPropertyOnly: true, templates: {} });
    registerLocaleFilters(engine, locale);
    engines.set(key, engine);
  }
  return engine;
}
