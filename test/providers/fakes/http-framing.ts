/**
 * Just enough HTTP/1.1 for the fault proxy and the HTTP fakes behind it: where one request
 * ends in a byte stream, and its request line and header fields. Requests with a
 * Content-Length only: a chunked request is refused loudly rather than misframed.
 */

/** A request as it crossed the wire: request line, header fields (names lower-cased), body. */
export interface HttpRequestHead {
  method: string;
  path: string;
  headers: Record<string, string>;
}

const HEAD_END = Buffer.from('\r\n\r\n');

/**
 * The length of the first complete request at the start of `buffer`, or null while it is
 * incomplete. Throws on a request the proxy cannot frame (chunked, or a bad Content-Length).
 */
export function httpRequestLength(buffer: Buffer): number | null {
  const end = buffer.indexOf(HEAD_END);
  if (end < 0) return null;
  const head = buffer.subarray(0, end).toString('latin1');
  if (/\r\ntransfer-encoding:/i.test(head)) {
    throw new Error('fault proxy: chunked requests are not supported; send a Content-Length');
  }
  const length = /\r\ncontent-length:[ \t]*([^\r]*)/i.exec(head)?.[1]?.trim();
  if (length !== undefined && !/^\d+$/.test(length)) throw new Error('fault proxy: bad Content-Length');
  const total = end + HEAD_END.length + (length === undefined ? 0 : Number(length));
  return buffer.length >= total ? total : null;
}

/** Reads the request line and header fields of one complete request. */
export function parseHttpRequestHead(request: Buffer): HttpRequestHead {
  const end = request.indexOf(HEAD_END);
  const lines = request
    .subarray(0, end < 0 ? request.length : end)
    .toString('latin1')
    .split('\r\n');
  const [method = '', path = ''] = (lines[0] ?? '').split(' ');
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { method, path, headers };
}

/**
 * Bytes no HTTP client can parse as an answer, quoting `canaries` so a test can tell whether
 * an adapter copies raw answer bytes into its outcome.
 */
export function malformedHttpAnswer(canaries: readonly string[]): Buffer {
  return Buffer.from(`HTTP/1.1 2OO garbled ${canaries.join(' ')}\r\nnot a header\r\n\r\n{"id":`, 'latin1');
}
