/**
 * How many SMS segments a text costs, and in which encoding (3GPP TS 23.038): a text whose
 * every character is in the GSM 7-bit default alphabet or its extension table goes as GSM-7,
 * 160 septets in one message or 153 per segment when concatenated (the user data header takes
 * 7); anything else goes as UCS-2, 70 UTF-16 units alone or 67 per segment. Extension-table
 * characters (€ [ ] { } \ ~ ^ |, form feed) cost two septets, and a segment never splits one,
 * nor a UTF-16 surrogate pair. Providers bill and throttle per segment.
 */

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface SmsSegments {
  encoding: SmsEncoding;
  segments: number;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2) of the whole text. */
  units: number;
}

const GSM_BASIC = '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞ\u001bÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM_EXTENSION = '\f^{}\\[~]|€';
const BASIC = new Set(GSM_BASIC);
const EXTENSION = new Set(GSM_EXTENSION);

/** Counts a text's segments and picks its encoding. An empty text is one segment. */
export function smsSegments(text: string): SmsSegments {
  const chars = [...text];
  if (chars.every((c) => BASIC.has(c) || EXTENSION.has(c))) {
    const costs = chars.map((c) => (EXTENSION.has(c) ? 2 : 1));
    return { encoding: 'GSM-7', units: sum(costs), segments: pack(costs, 160, 153) };
  }
  // UCS-2 on the wire is UTF-16 in practice: a character outside the BMP (an emoji) is a surrogate pair.
  const costs = chars.map((c) => c.length);
  return { encoding: 'UCS-2', units: sum(costs), segments: pack(costs, 70, 67) };
}

function sum(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

/** Segments needed when characters of these costs are packed, none split across segments. */
function pack(costs: number[], single: number, multi: number): number {
  if (sum(costs) <= single) return 1;
  let segments = 1;
  let used = 0;
  for (const c of costs) {
    if (used + c > multi) {
      segments++;
      used = 0;
    }
    used += c;
  }
  return segments;
}
