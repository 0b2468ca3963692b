import { formatOtpSms } from './otp-sms.js';

/** What a notification says, as stored with it and handed to a provider adapter. */
export interface MessageContent {
  subject?: string | null;
  text: string;
  html?: string | null;
  /**
   * E-mail header fields Herald adds at send time (List-Unsubscribe for marketing mail); never
   * stored with the notification and never taken from a producer. Other channels ignore them.
   */
  headers?: Record<string, string> | null;
  /** E-mail: the sender as the producer asked (`Name <address>` or an address), overriding the account's `from`; validated at intake. */
  from?: string | null;
  /**
   * E-mail: where replies go (an address, or `Name <address>`), overriding the account's
   * `reply_to`; validated at intake. Snake case like the API field: content is stored and
   * handed on exactly as the producer sent it.
   */
  reply_to?: string | null;
  /**
   * SMS only: the one-time code in the text, and how to mark it up for the phone to read it
   * itself (WebOTP's `@domain #code` last line, Android's SMS Retriever hash), resolved at
   * intake from the notification and its SMS account. Applied to the SMS text when it is sent
   * (`smsText`); other channels send the text as it is.
   */
  otp?: { code: string; webotp_domain: string | null; app_hash: string | null } | null;
  /**
   * A rendered template's per-channel parts where they differ from the top-level ones (the
   * e-mail's): SMS text, push title (as `subject`), body (as `text`) and data. Written by
   * intake only; `contentForChannel` applies them.
   */
  channels?: { sms?: { text: string }; push?: { subject: string | null; text: string; data: Record<string, string> | null } } | null;
  /** The template this content was rendered from at intake, if any: what GET /v1/notifications/:id shows. */
  template?: TemplateUse | null;
}

/** Which template version, in which locale, a message was rendered from, and a SHA-256 of the inputs. */
export interface TemplateUse {
  id: string;
  version: number;
  locale: string;
  inputs_hash: string;
}

/** The content one channel sends: a rendered template's part for the channel over the top-level fields. */
export function contentForChannel(content: MessageContent, channel: 'email' | 'sms' | 'push'): MessageContent {
  if (channel === 'sms' && content.channels?.sms) return { ...content, text: content.channels.sms.text, html: null };
  if (channel === 'push' && content.channels?.push) return { ...content, subject: content.channels.push.subject, text: content.channels.push.text, html: null };
  return content;
}

/** The text an SMS delivery sends: the content's text, with its one-time code marked up when asked. */
export function smsText(content: MessageContent): string {
  const otp = content.otp;
  return otp ? formatOtpSms(content.text, otp.code, { webotpDomain: otp.webotp_domain, appHash: otp.app_hash }) : content.text;
}

/** A rendered template's push `data` (string values, sent as the push's custom keys), or null. */
export function pushData(content: MessageContent): Record<string, string> | null {
  return content.channels?.push?.data ?? null;
}
