/**
 * The keywords of an incoming SMS that change what Herald may send to its sender: STOP, START
 * and HELP, pure. The default set is the CTIA's (Short Code Monitoring Handbook; the words
 * carriers and Twilio's Advanced Opt-Out also honour); an account may replace any action's
 * words and add words in other languages. docs/inbound.md lists them.
 *
 * A message is a keyword only when, case and spaces aside, it is nothing but the keyword
 * ("Stop", " stop ", "S T O P", "stop." and "STOP ALL" are; "please stop texting me" is not):
 * a false STOP silences a customer's codes, so the match is whole-message, as the CTIA and
 * Twilio match.
 */

export const KEYWORD_ACTIONS = ['stop', 'start', 'help'] as const;
export type KeywordAction = (typeof KEYWORD_ACTIONS)[number];

/** The words of each action, as configured (any case, any spacing). */
export type KeywordWords = Readonly<Record<KeywordAction, readonly string[]>>;

/** The CTIA set: the default of every account. */
export const CTIA_KEYWORDS: KeywordWords = {
  stop: ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'],
  start: ['START', 'UNSTOP', 'YES'],
  help: ['HELP', 'INFO'],
};

/** An account's keyword settings: `replace` swaps an action's words, `add` appends (other languages). */
export interface KeywordSettings {
  replace?: Partial<Record<KeywordAction, readonly string[]>> | null;
  add?: Partial<Record<KeywordAction, readonly string[]>> | null;
}

/** A compiled set: normalized word → action. */
export type KeywordSet = ReadonlyMap<string, KeywordAction>;

// Trailing punctuation people type after a keyword ("Stop.", "STOP!"); nothing else is removed.
const TRAILING_PUNCTUATION = /[.!?¡¿,;:]+$/u;

/**
 * The form a text is compared in: Unicode NFKC (full-width letters become ASCII), upper case
 * (locale-independent), every white space removed, trailing punctuation dropped.
 */
export function normalizeKeyword(text: string): string {
  return text.normalize('NFKC').toUpperCase().replace(/\s+/gu, '').replace(TRAILING_PUNCTUATION, '');
}

/**
 * Compiles an account's words over the CTIA default. Returns an error naming the word when one
 * word would mean two actions (a typo that turned START into STOP must not pass silently) or a
 * word is empty once normalized.
 */
export function compileKeywords(
  settings: KeywordSettings | null = null,
  base: KeywordWords = CTIA_KEYWORDS,
): { ok: true; set: KeywordSet } | { ok: false; error: string } {
  const set = new Map<string, KeywordAction>();
  for (const action of KEYWORD_ACTIONS) {
    const words = [...(settings?.replace?.[action] ?? base[action]), ...(settings?.add?.[action] ?? [])];
    for (const word of words) {
      const key = normalizeKeyword(word);
      if (key === '') return { ok: false, error: `keyword ${JSON.stringify(word)} of ${action} is empty once spaces and punctuation are removed` };
      const other = set.get(key);
      if (other !== undefined && other !== action) return { ok: false, error: `keyword ${JSON.stringify(word)} is listed for both ${other} and ${action}` };
      set.set(key, action);
    }
  }
  return { ok: true, set };
}

/** The action an incoming text asks for, or null when it is not (only) a keyword. */
export function recognizeKeyword(text: string, set: KeywordSet): KeywordAction | null {
  // A keyword is short; a long text is never one, and is not normalized for nothing.
  if (text.length > 64) return null;
  return set.get(normalizeKeyword(text)) ?? null;
}

/** The actions that get an automatic reply: HELP its help text, STOP its confirmation (START none). */
export type ReplyingAction = Exclude<KeywordAction, 'start'>;

/**
 * The default auto-replies. CTIA's handbook asks for a HELP answer that says how to stop and a
 * one-time STOP confirmation that says no more messages will come; the program's name and
 * contact are the operator's to add (`keyword_replies` on the account, docs/inbound.md).
 */
export const DEFAULT_KEYWORD_REPLIES: Readonly<Record<ReplyingAction, string>> = {
  help: 'Reply STOP to stop receiving messages from this number, START to receive them again.',
  stop: 'You will receive no more messages from this number. Reply START to receive them again.',
};

/** An account's reply texts: absent or null keeps the default, an empty string sends no reply. */
export type KeywordReplies = Readonly<Partial<Record<ReplyingAction, string | null>>>;

/** The text to answer `keyword` with, or null when it gets none (not HELP or STOP, or turned off). */
export function keywordReplyText(keyword: KeywordAction | null, replies: KeywordReplies | null): string | null {
  if (keyword !== 'help' && keyword !== 'stop') return null;
  const text = replies?.[keyword] ?? DEFAULT_KEYWORD_REPLIES[keyword];
  return text === '' ? null : text;
}
