/**
 * Which of a version's locales a message is rendered in: the requested (or recipient's) tag,
 * then each shorter prefix of it (`pt-BR` → `pt`), then the template's default locale. Tags
 * compare case-insensitively (BCP 47 is case-insensitive: `pt-br` is `pt-BR`).
 */

/** The tags to try, most specific first, without repeats; the default locale last. */
export function localeChain(requested: string | null | undefined, defaultLocale: string): string[] {
  const chain: string[] = [];
  if (requested) {
    const subtags = requested.split('-');
    for (let n = subtags.length; n >= 1; n--) chain.push(subtags.slice(0, n).join('-'));
  }
  chain.push(defaultLocale);
  const seen = new Set<string>();
  return chain.filter((tag) => {
    const key = tag.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The first tag of the chain that `available` has (as spelled in `available`) and `accepts`
 * approves, or null when none does.
 */
export function resolveLocale(chain: readonly string[], available: readonly string[], accepts: (tag: string) => boolean = () => true): string | null {
  for (const tag of chain) {
    const match = available.find((a) => a.toLowerCase() === tag.toLowerCase());
    if (match !== undefined && accepts(match)) return match;
  }
  return null;
}
