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
}
