/**
 * Generated from Herald's OpenAPI document (GET /openapi.json) by `npm run api:types`
 * (scripts/api-types.ts, openapi-typescript). Do not edit: change the route's schema in
 * src/http/ and regenerate (npm run api:types); test/http/api-types.test.ts fails while this file is stale.
 */
export interface paths {
  '/v1/callbacks/{providerAccountId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Delivery events from a provider, verified by its signature scheme
     * @description Authenticated by the provider account’s callback signature (the sandbox: Standard Webhooks), not by an API key. 200 means recorded (duplicates included); 401 a bad or stale signature (nothing recorded); 503 a transient fault, or a signature that cannot be checked yet (retry).
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          providerAccountId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              received: number;
              duplicates: number;
            };
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/callbacks/{providerAccountId}/inbound': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Incoming messages from a provider (Twilio), verified by its signature scheme
     * @description The URL to give the provider for incoming messages (Twilio: the number’s “A message comes in” webhook). Authenticated by the account’s signature, not by an API key. 200 means recorded (a duplicate included), answered as the provider expects (Twilio: TwiML); STOP suppresses the sender, START lifts it; a first HELP or STOP is answered with the account’s reply (docs/inbound.md). 401 a bad signature (nothing recorded); 503 a transient fault (retry).
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          providerAccountId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description The provider’s expected answer (Twilio: TwiML, text/xml) */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': string;
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        503: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/unsubscribe/{token}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Unsubscribe confirmation page
     * @description Shows what the link unsubscribes from, with a button that POSTs to the same URL. Changes nothing: scanners prefetch links.
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          token: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description A minimal HTML page */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/html': string;
          };
        };
        /** @description unsubscribe_link_invalid */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    /**
     * One-click unsubscribe (RFC 8058)
     * @description The URL of a marketing e-mail’s `List-Unsubscribe` header. Records the opt-out the signed token names (by default: marketing on that channel) and answers 200; repeating it changes nothing. Mail clients send the body `List-Unsubscribe=One-Click`.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          token: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description A minimal HTML page */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'text/html': string;
          };
        };
        /** @description unsubscribe_link_invalid */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/problem+json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/3rdparty/v1/health': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/3rdparty/v1/devices': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/3rdparty/v1/message': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            id?: string | null;
            message?: string | null;
            textMessage?: {
              text: string;
            } | null;
            phoneNumbers: string[];
            simNumber?: number | null;
            ttl?: number | null;
            /** Format: date-time */
            validUntil?: string | null;
            withDeliveryReport?: boolean | null;
            priority?: number | null;
            deviceId?: string | null;
            isEncrypted?: boolean | null;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/3rdparty/v1/messages': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            id?: string | null;
            message?: string | null;
            textMessage?: {
              text: string;
            } | null;
            phoneNumbers: string[];
            simNumber?: number | null;
            ttl?: number | null;
            /** Format: date-time */
            validUntil?: string | null;
            withDeliveryReport?: boolean | null;
            priority?: number | null;
            deviceId?: string | null;
            isEncrypted?: boolean | null;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/3rdparty/v1/message/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/3rdparty/v1/messages/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/session': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The signed-in session (from the herald_session cookie) and its CSRF token */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              session?: {
                id?: string;
                subject?: {
                  /** @enum {string} */
                  kind?: 'api_key' | 'user';
                  id?: string;
                  name?: string;
                };
                /** @enum {string} */
                role?: 'admin' | 'operator' | 'viewer';
                /** Format: date-time */
                expires_at?: string;
              };
              csrf_token?: string;
            };
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    /**
     * Sign in to the dashboard: opens a session and sets the herald_session cookie
     * @description Send `{"api_key": "..."}` (role admin) or `{"username": "...", "password": "..."}` (the user's role). The answer sets an HttpOnly, SameSite=Strict cookie (Secure over TLS); every later request that changes something must send `X-CSRF-Token: <csrf_token>`. Wrong credentials are 401 `invalid_credentials`, the same for an unknown user and a wrong password; too many failures are 429.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            api_key?: string;
            username?: string;
            password?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              session?: {
                id?: string;
                subject?: {
                  /** @enum {string} */
                  kind?: 'api_key' | 'user';
                  id?: string;
                  name?: string;
                };
                /** @enum {string} */
                role?: 'admin' | 'operator' | 'viewer';
                /** Format: date-time */
                expires_at?: string;
              };
              csrf_token?: string;
            };
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    /**
     * Sign out: revokes the session and clears the cookie
     * @description Needs `X-CSRF-Token` like every change made with the cookie. Without a live session it only clears the cookie.
     */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        204: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
        /** @description RFC 9457 problem details */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/limits': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The limits on the way in: request quota, velocity rules, SMS countries */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              /** @description The calling key's request quota (its own override or the default), or null when requests are not limited. */
              requests: {
                /** @description The policy name in the RateLimit and RateLimit-Policy headers. */
                policy: string;
                limit: number;
                window_s: number;
                /** @description Requests left in the current window, this one counted. */
                remaining: number;
                /** @description Seconds until the window resets. */
                reset_s: number;
                /** @description Always true: the count is kept in the database, so every API process spends one quota. */
                shared: boolean;
              } | null;
              /** @description Per purpose, the most notifications per destination or recipient in a sliding window. */
              velocity: {
                purpose: string;
                /** @enum {string} */
                limit: 'destination_velocity' | 'recipient_velocity';
                max: number;
                window_s: number;
              }[];
              sms: {
                /** @description ISO 3166-1 alpha-2 codes SMS may go to (001: non-geographic); null: every country (limits.sms.countries not set). */
                countries: string[] | null;
                refuse_number_types: string[];
              };
            };
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        429: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Accept a notification
     * @description Validates, then commits the notification, one `ready` delivery per channel and an outbox event in one transaction before answering 202. Send `Idempotency-Key` to make retries safe: the same key and body replay the first answer; a different body is 422; a concurrent duplicate is 409.
     */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description RFC 8941 sf-string or bare token, 1-255 chars */
          'idempotency-key'?: string;
        };
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            recipient: {
              id: string;
              email?: string;
              /** @description E.164, e.g. +14155550123 */
              phone?: string;
              push_token?: string;
              locale?: string;
              /** @description The recipient's IANA time zone (e.g. Europe/Berlin), for quiet hours (docs/scheduling.md); an offset such as +01:00 is refused. Default: the stored profile's, else the tenant's. */
              time_zone?: string;
            };
            /** @enum {string} */
            purpose: 'otp' | 'transactional' | 'conversational' | 'marketing' | 'alert';
            channels: ('email' | 'sms' | 'push')[];
            content?: {
              subject?: string;
              text: string;
              html?: string;
              /** @description E-mail only: the sender, `Name <address>` or an address, instead of the account's from (its domain must be one the provider lets the account send from). */
              from?: string;
              /** @description E-mail only: where replies go, `Name <address>` or an address, instead of the account's reply_to. */
              reply_to?: string;
              /** @description SMS, purpose otp: the code in the text, to mark up for WebOTP and Android's SMS Retriever (the SMS account's otp_sms_format gives the defaults). */
              otp?: {
                code: string;
                webotp_domain?: string;
                app_hash?: string;
              };
            };
            template?: {
              id: string;
              /** @description Pinned now; the published version when absent. */
              version?: number;
              /** @description Instead of recipient.locale; falls back pt-BR → pt → the template's default. */
              locale?: string;
              /** @description The Liquid variables; an undefined one is an error (422 template_render_failed). */
              data?: Record<string, never>;
            };
            /** Format: date-time */
            expires_at?: string;
            /**
             * Format: date-time
             * @description When the message becomes due (up to scheduling.send_at_horizon_days ahead, 30 by default); until then its deliveries are ready and cancellable. ttl_seconds counts from it; an expires_at must be after it.
             */
            send_at?: string;
            ttl_seconds?: number;
            group?: {
              key: string;
              generation: number;
            };
            metadata?: Record<string, never>;
            /** @description Send the channels one after another: the next channel starts only if the previous one has not reached fallback_evidence this long after it started. */
            fallback_after_seconds?: number;
            /**
             * @description What counts as "got through" for fallback. Default accepted.
             * @enum {string}
             */
            fallback_evidence?: 'accepted' | 'sent' | 'delivered';
            /** @description Per channel, the id of the provider account to send through (GET /v1/provider-accounts); without it, the channel's first configured account. */
            provider_accounts?: {
              email?: string;
              sms?: string;
              push?: string;
            };
            retry?: {
              /**
               * @description Retry this notification on another purpose's ladder.
               * @enum {string}
               */
              ladder: 'otp' | 'transactional' | 'conversational' | 'marketing' | 'alert';
            };
          };
        };
      };
      responses: {
        /** @description Default Response */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['NotificationAccepted'];
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        415: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        422: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/batch': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Accept up to 1,000 notifications, each answered on its own
     * @description Each item is a POST /v1/notifications body with an optional `idempotency_key`, checked and answered exactly as that endpoint would, in order: `results[i]` answers `items[i]`. The items that pass are committed together in one transaction before the answer (either all of them are stored or none), and workers are woken once. An invalid item never stops the others. The answer is 200 whenever the batch itself is well formed, whatever its items got: read each `status`. More than 1,000 items, or more than 16 MiB, is 413 `batch_too_large`. Items repeating a key are taken in turn: the later one replays the first (200) or is 422.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            items: {
              recipient: {
                id: string;
                email?: string;
                /** @description E.164, e.g. +14155550123 */
                phone?: string;
                push_token?: string;
                locale?: string;
                /** @description The recipient's IANA time zone (e.g. Europe/Berlin), for quiet hours (docs/scheduling.md); an offset such as +01:00 is refused. Default: the stored profile's, else the tenant's. */
                time_zone?: string;
              };
              /** @enum {string} */
              purpose: 'otp' | 'transactional' | 'conversational' | 'marketing' | 'alert';
              channels: ('email' | 'sms' | 'push')[];
              content?: {
                subject?: string;
                text: string;
                html?: string;
                /** @description E-mail only: the sender, `Name <address>` or an address, instead of the account's from (its domain must be one the provider lets the account send from). */
                from?: string;
                /** @description E-mail only: where replies go, `Name <address>` or an address, instead of the account's reply_to. */
                reply_to?: string;
                /** @description SMS, purpose otp: the code in the text, to mark up for WebOTP and Android's SMS Retriever (the SMS account's otp_sms_format gives the defaults). */
                otp?: {
                  code: string;
                  webotp_domain?: string;
                  app_hash?: string;
                };
              };
              template?: {
                id: string;
                /** @description Pinned now; the published version when absent. */
                version?: number;
                /** @description Instead of recipient.locale; falls back pt-BR → pt → the template's default. */
                locale?: string;
                /** @description The Liquid variables; an undefined one is an error (422 template_render_failed). */
                data?: Record<string, never>;
              };
              /** Format: date-time */
              expires_at?: string;
              /**
               * Format: date-time
               * @description When the message becomes due (up to scheduling.send_at_horizon_days ahead, 30 by default); until then its deliveries are ready and cancellable. ttl_seconds counts from it; an expires_at must be after it.
               */
              send_at?: string;
              ttl_seconds?: number;
              group?: {
                key: string;
                generation: number;
              };
              metadata?: Record<string, never>;
              /** @description Send the channels one after another: the next channel starts only if the previous one has not reached fallback_evidence this long after it started. */
              fallback_after_seconds?: number;
              /**
               * @description What counts as "got through" for fallback. Default accepted.
               * @enum {string}
               */
              fallback_evidence?: 'accepted' | 'sent' | 'delivered';
              /** @description Per channel, the id of the provider account to send through (GET /v1/provider-accounts); without it, the channel's first configured account. */
              provider_accounts?: {
                email?: string;
                sms?: string;
                push?: string;
              };
              retry?: {
                /**
                 * @description Retry this notification on another purpose's ladder.
                 * @enum {string}
                 */
                ladder: 'otp' | 'transactional' | 'conversational' | 'marketing' | 'alert';
              };
              /** @description Makes this item safe to send again: the same key and body replay its first answer (200), another body is 422. Printable ASCII, 1-255 characters. */
              idempotency_key?: string;
            }[];
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              results?: {
                /** @description The item's position in `items`, from 0. */
                index: number;
                /** @description 202 accepted now; 200 its idempotency_key replayed an earlier acceptance; 4xx refused (see `problem`). */
                status: number;
                /** @description What POST /v1/notifications answers with 202: id, purpose, times and deliveries. */
                notification: {
                  [key: string]: unknown;
                } | null;
                problem: components['schemas']['problem'] | null;
                /** @description The answer is the item's idempotency_key's stored one. */
                replayed: boolean;
              }[];
              /** @description Items answered 202. */
              accepted?: number;
              /** @description Items answered from their idempotency_key. */
              replayed?: number;
              /** @description Items answered with a problem (not replayed). */
              refused?: number;
            };
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        415: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A notification with its deliveries and every attempt */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['NotificationDetail'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/deliveries/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cancel every pending delivery matching a filter
     * @description Walks the deliveries matching `filter` (at least one field) and cancels each `ready` or `retryable` one through the same guarded transition as the single cancel, 500 at a time, with one audit row each. `submitting` and `unknown` deliveries are never cancelled (a provider may already have them): they are counted as `in_flight`. With `"dry_run": true` nothing changes and the answer is the preview.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            filter: {
              campaign_id?: string;
              /** @enum {string} */
              purpose?: 'otp' | 'transactional' | 'conversational' | 'marketing' | 'alert';
              recipient_id?: string;
              provider_account?: string;
              /**
               * @description Only pending deliveries can be cancelled.
               * @enum {string}
               */
              state?: 'ready' | 'retryable';
              /**
               * Format: date-time
               * @description created at or after (RFC 3339)
               */
              created_after?: string;
              /**
               * Format: date-time
               * @description created before (RFC 3339)
               */
              created_before?: string;
            };
            /** @description Why; kept with each audit row. */
            note?: string;
            /** @description Count what would happen, change nothing. Default false. */
            dry_run?: boolean;
          };
        };
      };
      responses: {
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/deliveries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List deliveries, newest first, filtered
     * @description Every filter given must hold. `q` is an exact notification id, delivery id, recipient id or operation id (the group key); `since`/`until` bound the creation time (ISO 8601; since inclusive, until exclusive). `failed=true` keeps only failed messages, by the one definition the overview, `GET /v1/stats`, `/metrics` and the alerts count (docs/operations.md, "What counts as a failed message"): terminal `rejected`, `exhausted` or `unresolved`, `expired` without ever being accepted, or `retryable` after a definite refusal; an offer to a phone is not a failure. Each filter walks its own index, so a page costs the same at any depth (docs/benchmarks.md). Sessions below admin see `destination` masked.
     */
    get: {
      parameters: {
        query?: {
          state?: 'ready' | 'submitting' | 'accepted' | 'unknown' | 'retryable' | 'terminal';
          channel?: 'email' | 'sms' | 'push';
          purpose?: 'otp' | 'transactional' | 'conversational' | 'marketing' | 'alert';
          terminal_reason?: 'expired' | 'exhausted' | 'rejected' | 'superseded' | 'suppressed' | 'unsubscribed' | 'unresolved' | 'cancelled' | 'held';
          downstream_status?: 'accepted' | 'sent' | 'delivered' | 'read' | 'bounced' | 'failed' | 'complained';
          provider_account?: string;
          device?: string;
          campaign?: string;
          /** @description ISO 8601; created at or after */
          since?: string;
          /** @description ISO 8601; created before */
          until?: string;
          /** @description an exact notification id, delivery id, recipient id or operation id */
          q?: string;
          /** @description true: only failed messages (docs/operations.md); false: no such filter */
          failed?: 'true' | 'false';
          cursor?: string;
          /** @description 1-200, default 50 */
          limit?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['DeliveryPage'];
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/deliveries/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One delivery, with its attempt timeline, its evidence and the operator actions taken on it
     * @description `evidence` is what happened downstream, ordered by time: each provider callback (`kind: callback`: its status, when Herald received it, the provider's own time when given, and its `effect`: `applied` moved the state or downstream status, `no_change` was late or repeated, `pending` is parked until the delivery settles) and each reconciliation look-up (`kind: lookup`: what it found and what that led to). The latest 100 of each kind are shown. A repeated callback with the same event id is recorded once.
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['DeliveryDetail'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/deliveries/{id}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cancel a delivery that has nothing in flight
     * @description A `ready` or `retryable` delivery ends `terminal/cancelled`; anything else is 409 `not_cancellable` (an `unknown` one too: its submission may have arrived, and a cancelled delivery can be replayed without accepting that risk). Recorded in the audit trail.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': Record<string, never>;
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Delivery'];
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/review': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Deliveries a person should look at, newest first
     * @description Terminal deliveries that ended `exhausted`, `rejected` or `unresolved`, and `unknown` deliveries that reconciliation has not settled within 15 minutes; and what a provider account's rollout stage held for a person (`held`: a definite answer ended `terminal/held`, or an `unknown` listed at once). Each item is a delivery with its `review_reason`; `reason` keeps one.
     */
    get: {
      parameters: {
        query?: {
          cursor?: string;
          /** @description 1-200, default 50 */
          limit?: string;
          /** @description Only the items with this review_reason. */
          reason?: 'exhausted' | 'rejected' | 'unresolved' | 'unknown_overdue' | 'held';
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ReviewPage'];
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/deliveries/{id}/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Replay one delivery now, with the same idempotency key
     * @description Moves a `retryable`, `unknown` or `terminal` (exhausted, rejected, cancelled, held, unresolved) delivery back to `ready` before its expiry. `unknown` and `unresolved` need `accept_duplicate_risk: true`. The API key that asked is recorded.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description Replay `unknown` and `unresolved` deliveries too, although the first submission may have arrived (a possible duplicate). Default false. */
            accept_duplicate_risk?: boolean;
            /** @description Why; kept with the replay record. */
            note?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Delivery'];
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/deliveries/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Replay every delivery matching a filter
     * @description Walks the deliveries matching `filter` that are `unknown`, `retryable` or `terminal`, oldest first, and replays each one the single replay would. At least one filter field is required. Answers with how many matched, how many were scheduled and why the others were refused. With `"dry_run": true` nothing changes: the answer says how many would be retried and, by reason, how many would be refused.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            filter: {
              /** @enum {string} */
              state?: 'ready' | 'submitting' | 'accepted' | 'unknown' | 'retryable' | 'terminal';
              /** @enum {string} */
              channel?: 'email' | 'sms' | 'push';
              provider_account?: string;
              /**
               * Format: date-time
               * @description created at or after (RFC 3339)
               */
              created_after?: string;
              /**
               * Format: date-time
               * @description created before (RFC 3339)
               */
              created_before?: string;
            };
            /** @description Replay `unknown` and `unresolved` deliveries too, although the first submission may have arrived (a possible duplicate). Default false. */
            accept_duplicate_risk?: boolean;
            /** @description Why; kept with the replay record. */
            note?: string;
            /** @description Count what would happen, change nothing. Default false. */
            dry_run?: boolean;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['BulkRetry'];
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/{id}/resend': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a notification again as the next generation of its challenge
     * @description A new notification with the same recipient, content, channels, purpose and metadata, in the same challenge group with generation = latest + 1 (new delivery keys), and a new expiry: `ttl_seconds` or `expires_at`, else the original lifetime. Takes `Idempotency-Key` like POST /v1/notifications.
     */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description RFC 8941 sf-string or bare token, 1-255 chars */
          'idempotency-key'?: string;
        };
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            ttl_seconds?: number;
            /** Format: date-time */
            expires_at?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        202: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['NotificationResent'];
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        422: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/stats': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The tenant's delivery statistics, from the store
     * @description The caller's tenant only: deliveries per state and terminal reason, the unknown count and age, due work per account, lane and purpose, accepted deliveries without downstream progress, deadline misses, the review queue, per provider account its recent failures, retry budget and throttle pause, a series of the last hour (60 one-minute buckets, default) or day (`window=day`, 96 fifteen-minute buckets), and the user reports. Read from the store: the same from every process, and after restarts.
     */
    get: {
      parameters: {
        query?: {
          /** @description hour (default) or day */
          window?: 'hour' | 'day';
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Stats'];
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/provider-accounts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The provider accounts this tenant may use, with their retry budget over the last minute and their standing in their routes */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['ProviderAccountList'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/provider-accounts/recent-errors': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Every provider account's recent errors by class, over the last 15 minutes, hour and day
     * @description Per configured account: `attempts` counts its calls by failed outcome (retryable, throttled, permanent, unknown, lease_expired), `terminal` its deliveries that ended with a failure reason (exhausted, rejected, expired, unresolved) by when they ended; each with `last_15m`, `last_1h` and `last_24h`. One aggregate query for every account. Credentials are never shown.
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['RecentErrors'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/provider-accounts/{id}/rollout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * What promoting a provider account to its next rollout stage would change, over the last 24 h of its attempts
     * @description Counts the attempts of the last 24 hours that carry rollout decisions by (decision taken, decision the next stage would take). `changes` lists the pairs that differ: what enabling the next stage would have done differently. At `full` the next stage is `full` and nothing differs.
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['RolloutSummary'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/webhooks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The tenant's webhook endpoints, oldest first */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    /**
     * Register a webhook endpoint
     * @description Herald POSTs every event of the listed types to `url`, signed with Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`), at least once and in order per notification. The answer carries the signing `secret` (`whsec_…`), shown only here and by rotate-secret. URLs that are or resolve to non-public addresses are refused with `webhook_url_refused`.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description http or https URL of a public host */
            url: string;
            /** @description Event types to receive; `*` for all, including types added later. */
            event_types: (
              | '*'
              | 'notification.created'
              | 'delivery.status'
              | 'message.received'
              | 'delivery.ready'
              | 'delivery.submitting'
              | 'delivery.accepted'
              | 'delivery.unknown'
              | 'delivery.retryable'
              | 'delivery.terminal'
            )[];
            description?: string;
          };
        };
      };
      responses: {
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        422: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/webhooks/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One webhook endpoint
     * @description Status (and why it is disabled), failures and backoff, and how many messages are pending and delivered. Never the secret.
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    /** Delete a webhook endpoint and its undelivered messages */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/webhooks/{id}/rotate-secret': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Replace the signing secret
     * @description Returns the endpoint with its new `secret`. For 24 hours the previous secret keeps signing beside the new one (two `v1,` entries in `webhook-signature`), so a receiver can switch secrets without rejecting a message.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': Record<string, never>;
        };
      };
      responses: {
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/webhooks/{id}/enable': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Re-enable a webhook endpoint
     * @description Re-activates an endpoint that was disabled (it answered 410, or kept failing) or is backing off; its undelivered messages are sent now, in order. Events published while it was disabled were not queued for it.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': Record<string, never>;
        };
      };
      responses: {
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/recipients/{id}/preferences': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A recipient's opt-outs
     * @description Empty for a recipient with none (or never seen).
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              recipient_id?: string;
              opt_outs?: {
                channel?: string | null;
                purpose?: string | null;
                /** @enum {string} */
                source?: 'api' | 'one_click';
                /** Format: date-time */
                opted_out_at?: string;
              }[];
            };
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    /**
     * Replace a recipient's opt-outs
     * @description The body is the whole set: opt-outs not listed are removed; ones already recorded keep their time and source (a one-click unsubscribe stays `one_click`). Checked before every attempt: a marketing or conversational delivery still queued for this recipient ends `terminal/unsubscribed` instead of being sent. `otp`, `transactional` and `alert` are never stopped by an opt-out.
     */
    put: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            opt_outs: {
              /**
               * @description The channel; null or absent: every channel.
               * @enum {string|null}
               */
              channel?: 'email' | 'sms' | 'push' | null;
              /**
               * @description The purpose (marketing or conversational); null or absent: both. Codes, receipts and alerts cannot be opted out of.
               * @enum {string|null}
               */
              purpose?: 'otp' | 'transactional' | 'conversational' | 'marketing' | 'alert' | null;
            }[];
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              recipient_id?: string;
              opt_outs?: {
                channel?: string | null;
                purpose?: string | null;
                /** @enum {string} */
                source?: 'api' | 'one_click';
                /** Format: date-time */
                opted_out_at?: string;
              }[];
            };
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        422: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/suppressions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The tenant's suppression list, newest first
     * @description Addresses Herald does not send to on a channel: hard bounces and manual entries stop every purpose, complaints stop marketing and conversational messages.
     */
    get: {
      parameters: {
        query?: {
          /** @description 1-1000, default 100 */
          limit?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items?: {
                channel?: string;
                destination?: string;
                /** @enum {string} */
                reason?: 'bounced' | 'complained' | 'manual';
                source_delivery_id?: string | null;
                /** Format: date-time */
                created_at?: string;
              }[];
            };
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    /**
     * Suppress an address on a channel (manual entry)
     * @description Nothing is sent to the address on the channel any more, whatever the purpose, from the next attempt on. 201 when added; 200 with the existing entry when the address was already suppressed (a bounce or complaint stays as it was).
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @enum {string} */
            channel: 'email' | 'sms' | 'push';
            /** @description E-mail address, E.164 number or push token, exactly as sent */
            destination: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              channel?: string;
              destination?: string;
              /** @enum {string} */
              reason?: 'bounced' | 'complained' | 'manual';
              source_delivery_id?: string | null;
              /** Format: date-time */
              created_at?: string;
            };
          };
        };
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              channel?: string;
              destination?: string;
              /** @enum {string} */
              reason?: 'bounced' | 'complained' | 'manual';
              source_delivery_id?: string | null;
              /** Format: date-time */
              created_at?: string;
            };
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    /**
     * Lift the suppression of an address on a channel
     * @description Removes the entry whatever its reason (bounce, complaint, manual): the next attempt to the address may be sent. The address goes in the JSON body.
     */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @enum {string} */
            channel: 'email' | 'sms' | 'push';
            /** @description E-mail address, E.164 number or push token, exactly as sent */
            destination: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              removed?: boolean;
            };
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/scheduling': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The tenant's time-aware sending policy in force
     * @description Time zone, quiet hours and frequency caps per purpose: the tenant's choices over the install's defaults (`scheduling:` in the config).
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['SchedulingPolicy'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    /**
     * Replace the tenant's time-aware sending policy
     * @description Replaces the tenant's choices (a purpose left out takes the install's default; null turns its quiet hours or caps off). Read at send time, so it applies to messages already queued, within seconds. Answers the policy now in force.
     */
    put: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description IANA zone for recipients without one of their own; null: the install's */
            time_zone?: string | null;
            /** @description Per purpose, the daily window in which nothing is sent (only marketing and conversational may have one). */
            quiet_hours?: {
              otp?: {
                /** @description local time the window begins, HH:MM (24-hour) */
                start: string;
                /** @description local time it ends, HH:MM; before start means it wraps midnight */
                end: string;
              } | null;
              transactional?: {
                /** @description local time the window begins, HH:MM (24-hour) */
                start: string;
                /** @description local time it ends, HH:MM; before start means it wraps midnight */
                end: string;
              } | null;
              conversational?: {
                /** @description local time the window begins, HH:MM (24-hour) */
                start: string;
                /** @description local time it ends, HH:MM; before start means it wraps midnight */
                end: string;
              } | null;
              marketing?: {
                /** @description local time the window begins, HH:MM (24-hour) */
                start: string;
                /** @description local time it ends, HH:MM; before start means it wraps midnight */
                end: string;
              } | null;
              alert?: {
                /** @description local time the window begins, HH:MM (24-hour) */
                start: string;
                /** @description local time it ends, HH:MM; before start means it wraps midnight */
                end: string;
              } | null;
            };
            /** @description Per purpose, at most `max` deliveries per recipient and channel in any rolling `period_seconds`. */
            frequency_caps?: {
              otp?: {
                caps: {
                  max: number;
                  period_seconds: number;
                }[];
                /** @description over the cap: defer (until the cap allows, before expiry) or suppress */
                action: string;
              } | null;
              transactional?: {
                caps: {
                  max: number;
                  period_seconds: number;
                }[];
                /** @description over the cap: defer (until the cap allows, before expiry) or suppress */
                action: string;
              } | null;
              conversational?: {
                caps: {
                  max: number;
                  period_seconds: number;
                }[];
                /** @description over the cap: defer (until the cap allows, before expiry) or suppress */
                action: string;
              } | null;
              marketing?: {
                caps: {
                  max: number;
                  period_seconds: number;
                }[];
                /** @description over the cap: defer (until the cap allows, before expiry) or suppress */
                action: string;
              } | null;
              alert?: {
                caps: {
                  max: number;
                  period_seconds: number;
                }[];
                /** @description over the cap: defer (until the cap allows, before expiry) or suppress */
                action: string;
              } | null;
            };
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['SchedulingPolicy'];
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        422: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/campaigns': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The tenant's campaigns, newest first, with status and progress
     * @description Each item is what GET /v1/campaigns/{id} shows (without its actions): status, plan, deadline, progress counts and projected finish. The counts of a page come from one aggregate query over its campaigns’ deliveries. `status` filters; `cursor` is a `next_cursor` from a previous page.
     */
    get: {
      parameters: {
        query?: {
          status?: 'draft' | 'running' | 'paused' | 'completed' | 'cancelled';
          cursor?: string;
          /** @description 1-100, default 20 */
          limit?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['CampaignPage'];
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    /**
     * Create a campaign and get its plan
     * @description One message to an audience on one channel, by a deadline. The answer (`201`) holds the **plan**: audience size, the rate the deadline requires, the rate the lane gives (provider rate minus the other lanes’ reserved shares), the best-case drain time, whether the deadline is feasible and, when not, the options with their numbers. Nothing is sent until `POST /v1/campaigns/{id}/start`, or at once with `"start": "if_feasible"` when the plan is feasible. Send `Idempotency-Key` to make retries safe, as for POST /v1/notifications.
     */
    post: {
      parameters: {
        query?: never;
        header?: {
          /** @description RFC 8941 sf-string or bare token, 1-255 chars */
          'idempotency-key'?: string;
        };
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            name?: string;
            /** @enum {string} */
            channel: 'email' | 'sms' | 'push';
            /**
             * @description Bulk purposes only: codes and alerts are never campaigns.
             * @enum {string}
             */
            purpose: 'marketing' | 'transactional';
            content?: {
              subject?: string;
              text: string;
              html?: string;
              /** @description E-mail only: the sender, `Name <address>` or an address, instead of the account's from (its domain must be one the provider lets the account send from). */
              from?: string;
              /** @description E-mail only: where replies go, `Name <address>` or an address, instead of the account's reply_to. */
              reply_to?: string;
              /** @description SMS, purpose otp: the code in the text, to mark up for WebOTP and Android's SMS Retriever (the SMS account's otp_sms_format gives the defaults). */
              otp?: {
                code: string;
                webotp_domain?: string;
                app_hash?: string;
              };
            };
            /** @description Instead of content: rendered for each recipient, as fan-out reaches them, with the audience row's `data` in the recipient's locale (docs/campaigns.md#templates). */
            template?: {
              id: string;
              /** @description Pinned when the campaign is created; the published version when absent. */
              version?: number;
            };
            /**
             * Format: date-time
             * @description When every recipient should have been sent to (RFC 3339). The plan says whether the lane can make it.
             */
            deadline_at: string;
            /**
             * Format: date-time
             * @description When the messages become due (RFC 3339): ahead of now, before `deadline_at`, and at most scheduling.send_at_horizon_days ahead (30 by default). The plan starts there; a started campaign queues its messages ready with `next_attempt_at` = `send_at`, so none is sent before it and a cancel before it sends nothing. Absent: due when the campaign starts.
             */
            send_at?: string;
            /** @description Each message's lifetime, counted from its fan-out, or from `send_at` while that is ahead. Default: the purpose's (3 days for marketing, 1 day for transactional). */
            ttl_seconds?: number;
            /** @description Copied to every notification, with `campaign_id` added. */
            metadata?: Record<string, never>;
            /** @description Exactly one of: an uploaded audience, recipients inline, or ids of stored recipients. */
            audience: {
              /** @description An audience uploaded with POST /v1/audiences. */
              audience_id?: string;
              recipients?: {
                id: string;
                email?: string;
                /** @description E.164, e.g. +14155550123 */
                phone?: string;
                push_token?: string;
                locale?: string;
                /** @description The recipient's IANA time zone (e.g. Europe/Berlin), for quiet hours (docs/scheduling.md); an offset such as +01:00 is refused. Default: the stored profile's, else the tenant's. */
                time_zone?: string;
                /** @description This recipient's template variables (a template campaign renders with them). */
                data?: Record<string, never>;
              }[];
              /** @description Recipients stored with PUT /v1/recipients/{id}. */
              recipient_ids?: string[];
            };
            /**
             * @description `if_feasible` starts at once when the deadline can be met. Default `draft`: start with POST /v1/campaigns/{id}/start.
             * @enum {string}
             */
            start?: 'if_feasible' | 'draft';
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Campaign'];
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        415: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        422: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/campaigns/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A campaign with its progress and projected finish
     * @description Progress counts come from one aggregate over the campaign’s deliveries: queued (held while paused), sending, unknown, accepted (and of those sent on, or bounced), failed, expired, suppressed, unsubscribed, cancelled; plus recipients not fanned out yet.
     */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['CampaignDetail'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/campaigns/{id}/refusals': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Recipients the campaign could not send to, with the reason
     * @description Every recipient whose message fan-out could not build (a template variable their data lacks, a part over its channel’s limit, data intake refuses), in audience order. They are counted in `progress.skipped` and `progress.refused_by_code`; never sent, never retried.
     */
    get: {
      parameters: {
        query?: {
          cursor?: string;
          /** @description 1-200, default 50 */
          limit?: string;
        };
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: {
                /** @description The recipient's place in the audience. */
                position: number;
                /** @description The upload line (or inline list index + 1) it came from. */
                line: number;
                recipient_id: string;
                /** @description The problem code POST /v1/notifications would have answered, e.g. `template_render_failed`. */
                code: string;
                /** @description What was wrong: for a template, the template, version, locale and part. */
                reason: string;
                /** @description The locale the template resolved to; null for a refusal that was not a template’s. */
                locale: string | null;
                /** Format: date-time */
                at: string;
              }[];
              next_cursor: string | null;
            };
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/campaigns/{id}/start': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Start a draft campaign (the caller’s confirmation)
     * @description Plans again for starting now (the stored `plan` is replaced) and starts fan-out whether or not the deadline can still be met.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': Record<string, never>;
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Campaign'];
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/campaigns/{id}/pause': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Pause a running campaign
     * @description Fan-out stops and every queued delivery is held; calls already in flight finish. A delivery that fails while paused is retried after `resume`, never skipped; one that expires while paused is counted as `expired`.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': Record<string, never>;
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Campaign'];
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/campaigns/{id}/resume': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Resume a paused campaign
     * @description Held deliveries are due again (a retry keeps its own time if that is later) and fan-out continues from where it stopped.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': Record<string, never>;
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Campaign'];
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/campaigns/{id}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cancel a campaign
     * @description Nothing more is fanned out and every queued delivery ends `terminal/cancelled`; calls in flight finish.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': Record<string, never>;
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Campaign'];
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/audiences/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** An uploaded audience: size, duplicates skipped, how many recipients have each address */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Audience'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/recipients/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A stored recipient profile */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    /**
     * Store a recipient’s addresses, locale and time zone
     * @description Creates (`201`) or replaces (`200`) the profile: a field left out is cleared. Addresses are checked as POST /v1/notifications checks them. A campaign audience may then list the recipient by id alone.
     */
    put: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            email?: string;
            /** @description E.164, e.g. +14155550123 */
            phone?: string;
            push_token?: string;
            locale?: string;
            /** @description The recipient's IANA time zone (e.g. Europe/Berlin), for quiet hours (docs/scheduling.md); an offset such as +01:00 is refused. Default: the stored profile's, else the tenant's. */
            time_zone?: string;
          };
        };
      };
      responses: {
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    post?: never;
    /** Erase one recipient's data (content, destinations, profile, preferences, push subscriptions) */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              recipient_id?: string;
              deliveries_cancelled?: number;
              notifications_erased?: number;
              notifications_in_flight?: number;
              destinations_masked?: number;
              profile_deleted?: boolean;
              preferences_deleted?: number;
              push_subscriptions_deleted?: number;
              audience_rows_cleared?: number;
            };
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/erasures': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** What was erased of your data (retention and recipient erasures), newest first */
    get: {
      parameters: {
        query?: {
          cursor?: string;
          /** @description 1-200, default 50 */
          limit?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: {
                id: string;
                /**
                 * @description The retention job, or DELETE /v1/recipients/{id}.
                 * @enum {string}
                 */
                cause: 'retention' | 'recipient_request';
                /**
                 * @description `otp_content`: one-time codes after settlement; `content`: other content past its window; `destinations`: addresses masked; `recipient`: one recipient erased.
                 * @enum {string}
                 */
                what: 'otp_content' | 'content' | 'destinations' | 'recipient';
                /** @description The erased recipient (recipient_request only). */
                recipient_id: string | null;
                /** @description Notifications erased (deliveries masked for `destinations`). */
                count: number;
                /** @description Retention: `{purpose}` for `content`. A recipient: what else went (counts). */
                details: {
                  [key: string]: unknown;
                } | null;
                /** Format: date-time */
                created_at: string;
              }[];
              next_cursor: string | null;
            };
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/recipients/{id}/push-subscriptions/{subscriptionId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Register or update one device of a recipient (FCM token, APNs token, Web Push subscription)
     * @description Idempotent: the same body again changes nothing but updated_at. A deactivated subscription registered again is active again.
     */
    put: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
          subscriptionId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @enum {string} */
            type: 'fcm' | 'apns' | 'webpush';
            /** @description fcm: the registration token; apns: the device token (hex) */
            token?: string;
            /**
             * @description apns: the app build’s APNs environment
             * @enum {string}
             */
            environment?: 'production' | 'sandbox';
            /** @description webpush: the subscription’s endpoint (https) */
            endpoint?: string;
            /** @description webpush: PushSubscription.toJSON().keys */
            keys?: {
              p256dh: string;
              auth: string;
            };
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              id?: string;
              type?: string;
              /** @description The last characters of the token or endpoint, to tell devices apart */
              target_hint?: string;
              active?: boolean;
              /** Format: date-time */
              created_at?: string;
              /** Format: date-time */
              updated_at?: string;
              /** Format: date-time */
              deactivated_at?: string | null;
              /** @enum {string|null} */
              deactivated_reason?: 'removed' | 'unregistered' | 'bad_token' | null;
              deactivated_code?: string | null;
            };
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    post?: never;
    /** Remove one device of a recipient: nothing more is sent to it */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
          subscriptionId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/recipients/{id}/push-subscriptions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** A recipient's push subscriptions, active and deactivated */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items?: {
                id?: string;
                type?: string;
                /** @description The last characters of the token or endpoint, to tell devices apart */
                target_hint?: string;
                active?: boolean;
                /** Format: date-time */
                created_at?: string;
                /** Format: date-time */
                updated_at?: string;
                /** Format: date-time */
                deactivated_at?: string | null;
                /** @enum {string|null} */
                deactivated_reason?: 'removed' | 'unregistered' | 'bad_token' | null;
                deactivated_code?: string | null;
              }[];
            };
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/notifications/{id}/reports': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Report what a person experienced: a duplicate, or nothing received */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @enum {string} */
            kind: 'duplicate' | 'not_received';
            /**
             * @description The channel the report is about, when known.
             * @enum {string}
             */
            channel?: 'email' | 'sms' | 'push';
            /** @description What support was told; keep personal data out of it. */
            note?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              id?: string;
              /** @enum {string} */
              kind?: 'duplicate' | 'not_received';
              channel?: string | null;
              note?: string | null;
              reported_by?: string;
              /** Format: date-time */
              created_at?: string;
            };
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/alerts': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Operator alerts sent, newest first (every target and try; system-wide) */
    get: {
      parameters: {
        query?: {
          cursor?: string;
          /** @description 1-200, default 50 */
          limit?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items: {
                id?: number;
                /** Format: date-time */
                sent_at?: string;
                rule?: string | null;
                subject?: string | null;
                /** @enum {string} */
                kind?: 'firing' | 'resolved' | 'test';
                /** @enum {string} */
                target_kind?: 'email' | 'sms' | 'webhook';
                /** @description masked: o***@example.com, +4915*******89, https://hooks.example.com/… */
                target?: string;
                provider_account?: string | null;
                /** @enum {string} */
                outcome?: 'sent' | 'failed';
                error_class?: string | null;
              }[];
              next_cursor: string | null;
            };
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/alerts/active': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Operator alerts firing now (system-wide) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              items?: {
                rule?: string;
                subject?: string;
                /** Format: date-time */
                since?: string;
                line?: string;
                value?: number;
                /** @description whether a message about it has gone out (false inside the minimum gap) */
                announced?: boolean;
                /** Format: date-time */
                announced_at?: string | null;
              }[];
            };
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/events/stream': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The tenant's outbox events as server-sent events
     * @description `text/event-stream`: `event: <type>`, `id: <outbox id>`, `data: <the webhook payload>`. Send `Last-Event-ID` to resume; without it the stream starts at the newest event. A `: keep-alive` comment every 15 s. Authenticated like every /v1 route (bearer key or session cookie).
     */
    get: {
      parameters: {
        query?: never;
        header?: {
          'last-event-id'?: string;
        };
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content?: never;
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/templates': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The tenant's templates, by id */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    /** Create a template, optionally with its first version */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description The name requests use (`template.id`): lower case, digits, `_ . -`. */
            id: string;
            name: string;
            /** @description The end of every fallback chain; every version has parts for it. */
            default_locale: string;
            version?: {
              locales: {
                [key: string]: {
                  email?: {
                    subject: string;
                    html?: string;
                    mjml?: string;
                    text?: string;
                  };
                  sms?: {
                    text: string;
                  };
                  push?: {
                    title?: string;
                    body: string;
                    data?: {
                      [key: string]: string;
                    };
                  };
                };
              };
              /** @description Make this version the published (default) one. */
              publish?: boolean;
            };
          };
        };
      };
      responses: {
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        422: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/templates/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One template */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/templates/{id}/versions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Save a new immutable version (compiled first; refused whole if it does not compile) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            locales: {
              [key: string]: {
                email?: {
                  subject: string;
                  html?: string;
                  mjml?: string;
                  text?: string;
                };
                sms?: {
                  text: string;
                };
                push?: {
                  title?: string;
                  body: string;
                  data?: {
                    [key: string]: string;
                  };
                };
              };
            };
            /** @description Make this version the published (default) one. */
            publish?: boolean;
          };
        };
      };
      responses: {
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        422: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/templates/{id}/versions/{v}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One version, as saved */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
          v: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/templates/{id}/versions/{v}/publish': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Make a version the published one (requests without `template.version` use it from now on; queued messages keep theirs) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
          v: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/templates/{id}/versions/{v}/preview': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Render a version with data and a locale; nothing is sent or stored */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
          v: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            data?: Record<string, never>;
            locale?: string;
            /** @description Default: every channel the resolved locale has. */
            channels?: ('email' | 'sms' | 'push')[];
          };
        };
      };
      responses: {
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        422: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/keys': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** The tenant's API keys, revoked ones included, oldest first */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    /**
     * Create an API key (shown once in the answer)
     * @description Scopes must be ones the calling key has itself. Herald keeps only a SHA-256 of the key.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            label: string;
            scopes: ('send' | 'read' | 'operate' | 'admin' | 'dashboard' | 'tenants')[];
            /** @description RFC 3339 date-time in the future; absent: never expires */
            expires_at?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              id?: string;
              label?: string;
              scopes?: ('send' | 'read' | 'operate' | 'admin' | 'dashboard' | 'tenants')[];
              /** Format: date-time */
              created_at?: string;
              /** Format: date-time */
              expires_at?: string | null;
              /**
               * Format: date-time
               * @description Updated at most once a minute
               */
              last_used_at?: string | null;
              /** Format: date-time */
              revoked_at?: string | null;
              /** @description The key itself: only in the answer that created it */
              key?: string;
              /** @description Rotation: the id of the key this one replaced (now revoked) */
              replaces?: string;
            };
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/keys/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One API key (never the key itself) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    /**
     * Revoke an API key: refused at once here and within a second on every other process
     * @description Revoking twice is not an error; the answer shows when it was revoked. Sessions signed in with the key end too.
     */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              id?: string;
              label?: string;
              scopes?: ('send' | 'read' | 'operate' | 'admin' | 'dashboard' | 'tenants')[];
              /** Format: date-time */
              created_at?: string;
              /** Format: date-time */
              expires_at?: string | null;
              /**
               * Format: date-time
               * @description Updated at most once a minute
               */
              last_used_at?: string | null;
              /** Format: date-time */
              revoked_at?: string | null;
              /** @description The key itself: only in the answer that created it */
              key?: string;
              /** @description Rotation: the id of the key this one replaced (now revoked) */
              replaces?: string;
            };
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/keys/{id}/rotate': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Rotate an API key: a new key with the same label, scopes and expiry; the old one is revoked at once */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              id?: string;
              label?: string;
              scopes?: ('send' | 'read' | 'operate' | 'admin' | 'dashboard' | 'tenants')[];
              /** Format: date-time */
              created_at?: string;
              /** Format: date-time */
              expires_at?: string | null;
              /**
               * Format: date-time
               * @description Updated at most once a minute
               */
              last_used_at?: string | null;
              /** Format: date-time */
              revoked_at?: string | null;
              /** @description The key itself: only in the answer that created it */
              key?: string;
              /** @description Rotation: the id of the key this one replaced (now revoked) */
              replaces?: string;
            };
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tenants': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** Every tenant, by id (operator) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    /** Create a tenant and its first API key (shown once) (operator) */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            /** @description Lower-case letters, digits, _ and - */
            id: string;
            name: string;
            key_label?: string;
          };
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              id?: string;
              name?: string;
              /** Format: date-time */
              created_at?: string;
              /** @description Accounts assigned to the tenant */
              provider_accounts?: string[];
              /** @description The same accounts with their rate shares */
              assignments?: {
                provider_account?: string;
                /** @description Fraction of the account's rate the limiter lets this tenant use at most; null: none (it competes for the whole rate) */
                rate_share?: number | null;
              }[];
              key?: {
                id?: string;
                label?: string;
                scopes?: ('send' | 'read' | 'operate' | 'admin' | 'dashboard' | 'tenants')[];
                /** Format: date-time */
                created_at?: string;
                /** Format: date-time */
                expires_at?: string | null;
                /**
                 * Format: date-time
                 * @description Updated at most once a minute
                 */
                last_used_at?: string | null;
                /** Format: date-time */
                revoked_at?: string | null;
                /** @description The key itself: only in the answer that created it */
                key?: string;
                /** @description Rotation: the id of the key this one replaced (now revoked) */
                replaces?: string;
              };
            };
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        409: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tenants/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** One tenant and its provider accounts (operator) */
    get: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tenants/{id}/provider-accounts/{accountId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Assign a configured provider account to a tenant, with an optional rate share (operator)
     * @description Once an account is assigned to any tenant, only its tenants send through it; an account assigned to nobody is the default tenant's. `rate_share` (0 < s ≤ 1) caps the tenant at that fraction of the account's rate in the limiter; without it (or null) the tenant competes for the whole rate. A PUT replaces the share of an existing assignment. The shares on one account sum to at most 1 (else 422 rate_shares_exceed_account, nothing written).
     */
    put: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
          accountId: string;
        };
        cookie?: never;
      };
      requestBody: {
        content: {
          'application/json': {
            rate_share?: number | null;
          };
        };
      };
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              id?: string;
              name?: string;
              /** Format: date-time */
              created_at?: string;
              /** @description Accounts assigned to the tenant */
              provider_accounts?: string[];
              /** @description The same accounts with their rate shares */
              assignments?: {
                provider_account?: string;
                /** @description Fraction of the account's rate the limiter lets this tenant use at most; null: none (it competes for the whole rate) */
                rate_share?: number | null;
              }[];
              key?: {
                id?: string;
                label?: string;
                scopes?: ('send' | 'read' | 'operate' | 'admin' | 'dashboard' | 'tenants')[];
                /** Format: date-time */
                created_at?: string;
                /** Format: date-time */
                expires_at?: string | null;
                /**
                 * Format: date-time
                 * @description Updated at most once a minute
                 */
                last_used_at?: string | null;
                /** Format: date-time */
                revoked_at?: string | null;
                /** @description The key itself: only in the answer that created it */
                key?: string;
                /** @description Rotation: the id of the key this one replaced (now revoked) */
                replaces?: string;
              };
            };
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        422: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    post?: never;
    /** Take a provider account away from a tenant (operator); deliveries already accepted keep their account */
    delete: {
      parameters: {
        query?: never;
        header?: never;
        path: {
          id: string;
          accountId: string;
        };
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description Default Response */
        200: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': {
              id?: string;
              name?: string;
              /** Format: date-time */
              created_at?: string;
              /** @description Accounts assigned to the tenant */
              provider_accounts?: string[];
              /** @description The same accounts with their rate shares */
              assignments?: {
                provider_account?: string;
                /** @description Fraction of the account's rate the limiter lets this tenant use at most; null: none (it competes for the whole rate) */
                rate_share?: number | null;
              }[];
              key?: {
                id?: string;
                label?: string;
                scopes?: ('send' | 'read' | 'operate' | 'admin' | 'dashboard' | 'tenants')[];
                /** Format: date-time */
                created_at?: string;
                /** Format: date-time */
                expires_at?: string | null;
                /**
                 * Format: date-time
                 * @description Updated at most once a minute
                 */
                last_used_at?: string | null;
                /** Format: date-time */
                revoked_at?: string | null;
                /** @description The key itself: only in the answer that created it */
                key?: string;
                /** @description Rotation: the id of the key this one replaced (now revoked) */
                replaces?: string;
              };
            };
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        404: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/audit': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The tenant's audit trail of operator actions, newest first
     * @description Who (an API key or a dashboard user), when, what, on what and from which address: replays, resends, cancels, key and tenant changes, provider account assignments, preference and suppression edits, recipient erasures. Follow `next_cursor` for older entries.
     */
    get: {
      parameters: {
        query?: {
          cursor?: string;
          /** @description 1 to 200, default 50 */
          limit?: string;
        };
        header?: never;
        path?: never;
        cookie?: never;
      };
      requestBody?: never;
      responses: {
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        403: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/audiences': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Upload an audience (NDJSON or CSV), streamed
     * @description One recipient per line, as `application/x-ndjson` (`{"id":"u1","email":"ada@example.com","locale":"en"}`) or `text/csv` with a header line naming the columns (`id,email,phone,push_token,locale`). A row that gives only an `id` takes the addresses of the stored recipient (PUT /v1/recipients/{id}). Rows are checked as POST /v1/notifications checks a recipient; a repeated id keeps its first row. Any bad row refuses the whole upload with `audience_invalid`, naming up to ten lines. At most 200 MiB. Use the answer’s `id` as `audience.audience_id` in POST /v1/campaigns.
     */
    post: {
      parameters: {
        query?: never;
        header?: never;
        path?: never;
        cookie?: never;
      };
      /** @description NDJSON or CSV, UTF-8 */
      requestBody: {
        content: {
          'application/x-ndjson': string;
          'text/csv': string;
        };
      };
      responses: {
        /** @description Default Response */
        201: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['Audience'];
          };
        };
        /** @description RFC 9457 problem details */
        400: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        401: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        413: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        415: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
        /** @description RFC 9457 problem details */
        422: {
          headers: {
            [name: string]: unknown;
          };
          content: {
            'application/json': components['schemas']['problem'];
          };
        };
      };
    };
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    /** @description RFC 9457 problem details */
    problem: {
      type?: string;
      title?: string;
      status?: number;
      /** @enum {string} */
      code?:
        | 'invalid_json'
        | 'validation_failed'
        | 'invalid_url'
        | 'invalid_cursor'
        | 'idempotency_key_invalid'
        | 'callback_malformed'
        | 'audience_invalid'
        | 'unauthorized'
        | 'callback_signature_invalid'
        | 'not_found'
        | 'unsubscribe_link_invalid'
        | 'callbacks_not_configured'
        | 'idempotency_key_in_use'
        | 'duplicate_challenge'
        | 'stale_generation'
        | 'duplicate_risk_not_accepted'
        | 'replay_expired'
        | 'not_replayable'
        | 'campaign_state_conflict'
        | 'template_exists'
        | 'send_at_conflict'
        | 'payload_too_large'
        | 'batch_too_large'
        | 'audience_too_large'
        | 'uri_too_long'
        | 'unsupported_media_type'
        | 'unsupported_audience_format'
        | 'idempotency_key_mismatch'
        | 'template_invalid'
        | 'template_unknown'
        | 'template_not_published'
        | 'template_part_missing'
        | 'template_render_failed'
        | 'template_content_too_large'
        | 'content_too_large'
        | 'send_at_after_expiry'
        | 'send_at_beyond_horizon'
        | 'expires_before_arrival'
        | 'send_at_after_deadline'
        | 'invalid_time_zone'
        | 'invalid_quiet_hours'
        | 'invalid_frequency_cap'
        | 'no_provider_account'
        | 'audience_empty'
        | 'purpose_not_optional'
        | 'webhook_url_refused'
        | 'invalid_credentials'
        | 'csrf_required'
        | 'forbidden_role'
        | 'not_cancellable'
        | 'too_many_attempts'
        | 'rate_limited'
        | 'velocity_limited'
        | 'country_not_allowed'
        | 'number_type_not_allowed'
        | 'dashboard_not_built'
        | 'scope_required'
        | 'tenant_exists'
        | 'provider_account_not_assigned'
        | 'rate_shares_exceed_account'
        | 'internal_error'
        | 'service_unavailable';
      detail?: string;
      instance?: string;
      errors?: {
        field?: string;
        message?: string;
      }[];
      /** @description The limit that refused the request (docs/abuse-limits.md): its name and bound. */
      limit?: {
        name?: string;
      } & {
        [key: string]: unknown;
      };
      /** @description Seconds until the request may pass (as Retry-After). */
      retry_after_s?: number;
    };
    NotificationAccepted: {
      id: string;
      /** @enum {string} */
      purpose: 'otp' | 'transactional' | 'conversational' | 'marketing' | 'alert';
      /** Format: date-time */
      created_at: string;
      /**
       * Format: date-time
       * @description present when the request named one
       */
      send_at?: string;
      /** Format: date-time */
      expires_at: string;
      /** @description present with fallback_after_seconds: the channels not started yet */
      fallback?: {
        after_seconds: number;
        evidence: string;
        pending_channels: ('email' | 'sms' | 'push')[];
      };
      deliveries: {
        id: string;
        /** @enum {string} */
        channel: 'email' | 'sms' | 'push';
        /** @enum {string} */
        state: 'ready' | 'submitting' | 'accepted' | 'unknown' | 'retryable' | 'terminal';
        provider_account: string;
      }[];
    };
    NotificationResent: {
      id: string;
      /** @enum {string} */
      purpose: 'otp' | 'transactional' | 'conversational' | 'marketing' | 'alert';
      /** Format: date-time */
      created_at: string;
      /**
       * Format: date-time
       * @description present when the request named one
       */
      send_at?: string;
      /** Format: date-time */
      expires_at: string;
      /** @description present with fallback_after_seconds: the channels not started yet */
      fallback?: {
        after_seconds: number;
        evidence: string;
        pending_channels: ('email' | 'sms' | 'push')[];
      };
      deliveries: {
        id: string;
        /** @enum {string} */
        channel: 'email' | 'sms' | 'push';
        /** @enum {string} */
        state: 'ready' | 'submitting' | 'accepted' | 'unknown' | 'retryable' | 'terminal';
        provider_account: string;
      }[];
      /** @description the notification this one resends */
      resend_of: string;
    };
    Attempt: {
      number: number;
      started_at: string | null;
      finished_at: string | null;
      /** @description an outcome kind, `lease_expired`, or null while in flight */
      outcome: string | null;
      provider_message_id: string | null;
      error: {
        code: string;
        message: string | null;
      } | null;
      retry_after_ms: number | null;
      late_outcome: string | null;
      ambiguity_policy: string | null;
      resolution: string | null;
      decision: {
        kind: string;
        retry_at: string | null;
      } | null;
      next_stage_decision: {
        kind: string;
        retry_at: string | null;
      } | null;
      provider_account: string | null;
      failover_reason: ('retryable' | 'throttled' | 'account_paused' | 'over_retry_budget' | 'no_phone_online' | 'accept_duplicate') | null;
      worker_id: string;
    };
    Delivery: {
      id: string;
      notification_id: string;
      /** @enum {string} */
      channel: 'email' | 'sms' | 'push';
      /** @enum {string} */
      purpose: 'otp' | 'transactional' | 'conversational' | 'marketing' | 'alert';
      /** @enum {string} */
      state: 'ready' | 'submitting' | 'accepted' | 'unknown' | 'retryable' | 'terminal';
      terminal_reason: ('expired' | 'exhausted' | 'rejected' | 'superseded' | 'suppressed' | 'unsubscribed' | 'unresolved' | 'cancelled' | 'held') | null;
      downstream_status: ('accepted' | 'sent' | 'delivered' | 'read' | 'bounced' | 'failed' | 'complained') | null;
      provider_account: string;
      provider_message_id: string | null;
      idempotency_key: string;
      attempt_count: number;
      next_attempt_at: string | null;
      /** Format: date-time */
      expires_at: string;
      last_error_code: string | null;
      hold_reason: ('quiet_hours' | 'frequency_capped') | null;
      /** Format: date-time */
      created_at: string;
      /** Format: date-time */
      updated_at: string;
    };
    Action: {
      /** Format: date-time */
      at: string;
      action: string;
      by: {
        kind: string;
        id: string;
        name: string | null;
      };
      delivery_id?: string;
      detail: unknown;
    };
    DeliveryListItem: {
      id: string;
      notification_id: string;
      /** @enum {string} */
      channel: 'email' | 'sms' | 'push';
      /** @enum {string} */
      purpose: 'otp' | 'transactional' | 'conversational' | 'marketing' | 'alert';
      /** @enum {string} */
      state: 'ready' | 'submitting' | 'accepted' | 'unknown' | 'retryable' | 'terminal';
      terminal_reason: ('expired' | 'exhausted' | 'rejected' | 'superseded' | 'suppressed' | 'unsubscribed' | 'unresolved' | 'cancelled' | 'held') | null;
      downstream_status: ('accepted' | 'sent' | 'delivered' | 'read' | 'bounced' | 'failed' | 'complained') | null;
      provider_account: string;
      provider_message_id: string | null;
      idempotency_key: string;
      attempt_count: number;
      next_attempt_at: string | null;
      /** Format: date-time */
      expires_at: string;
      last_error_code: string | null;
      hold_reason: ('quiet_hours' | 'frequency_capped') | null;
      /** Format: date-time */
      created_at: string;
      /** Format: date-time */
      updated_at: string;
      recipient_id: string | null;
      operation_id: string | null;
      campaign_id: string | null;
      device_id: string | null;
      /** @description masked for sessions below admin; null for push */
      destination: string | null;
      /** Format: date-time */
      last_event_at: string;
    };
    DeliveryPage: {
      items: components['schemas']['DeliveryListItem'][];
      next_cursor: string | null;
    };
    DeliveryDetail: {
      id: string;
      notification_id: string;
      /** @enum {string} */
      channel: 'email' | 'sms' | 'push';
      /** @enum {string} */
      purpose: 'otp' | 'transactional' | 'conversational' | 'marketing' | 'alert';
      /** @enum {string} */
      state: 'ready' | 'submitting' | 'accepted' | 'unknown' | 'retryable' | 'terminal';
      terminal_reason: ('expired' | 'exhausted' | 'rejected' | 'superseded' | 'suppressed' | 'unsubscribed' | 'unresolved' | 'cancelled' | 'held') | null;
      downstream_status: ('accepted' | 'sent' | 'delivered' | 'read' | 'bounced' | 'failed' | 'complained') | null;
      provider_account: string;
      provider_message_id: string | null;
      idempotency_key: string;
      attempt_count: number;
      next_attempt_at: string | null;
      /** Format: date-time */
      expires_at: string;
      last_error_code: string | null;
      hold_reason: ('quiet_hours' | 'frequency_capped') | null;
      /** Format: date-time */
      created_at: string;
      /** Format: date-time */
      updated_at: string;
      template: {
        id: string;
        version: number;
        locale: string;
        inputs_hash: string;
      } | null;
      attempts: components['schemas']['Attempt'][];
      evidence: {
        /** @enum {string} */
        kind: 'callback' | 'lookup';
        /**
         * Format: date-time
         * @description when Herald received the callback, or made the look-up
         */
        at: string;
        provider_account?: string;
        /** @description the provider's event id (a repeat of it is recorded once) */
        event_id?: string;
        /** @enum {string} */
        status?: 'accepted' | 'sent' | 'delivered' | 'read' | 'bounced' | 'failed' | 'complained';
        /**
         * Format: date-time
         * @description the provider's own time for the event, when it gives one
         */
        occurred_at?: string | null;
        /** Format: date-time */
        received_at?: string;
        /** Format: date-time */
        applied_at?: string | null;
        /**
         * @description applied: moved the state or downstream status; no_change: late or repeated; pending: parked until the delivery settles
         * @enum {string}
         */
        effect?: 'applied' | 'no_change' | 'pending';
        /** @description the attempt whose ambiguity the look-up was settling */
        attempt?: number;
        /** @enum {string} */
        result?: 'found' | 'not_found' | 'no_answer';
        /**
         * @description asked_later: no authoritative answer yet, or inside the look-up grace period
         * @enum {string}
         */
        led_to?: 'accepted' | 'retryable' | 'unresolved' | 'asked_later';
        /** @description the adapter's code when the look-up got no answer */
        error_code?: string | null;
        provider_message_id?: string | null;
      }[];
      duplicate_across_accounts: {
        /** @description The accounts whose delivered (or read) callback was merged, first report first. */
        accounts: string[];
      } | null;
      actions: components['schemas']['Action'][];
    };
    Report: {
      id: string;
      kind: string;
      channel: string | null;
      note: string | null;
      reported_by: string;
      /** Format: date-time */
      created_at: string;
    };
    NotificationDetail: {
      id: string;
      /** @enum {string} */
      purpose: 'otp' | 'transactional' | 'conversational' | 'marketing' | 'alert';
      recipient_id: string;
      channels: ('email' | 'sms' | 'push')[];
      group: {
        key: string;
        generation: number;
      };
      metadata: {
        [key: string]: unknown;
      } | null;
      /** Format: date-time */
      expires_at: string;
      /** Format: date-time */
      created_at: string;
      template: {
        id: string;
        version: number;
        locale: string;
        inputs_hash: string;
      } | null;
      deliveries: {
        id: string;
        notification_id: string;
        /** @enum {string} */
        channel: 'email' | 'sms' | 'push';
        /** @enum {string} */
        purpose: 'otp' | 'transactional' | 'conversational' | 'marketing' | 'alert';
        /** @enum {string} */
        state: 'ready' | 'submitting' | 'accepted' | 'unknown' | 'retryable' | 'terminal';
        terminal_reason: ('expired' | 'exhausted' | 'rejected' | 'superseded' | 'suppressed' | 'unsubscribed' | 'unresolved' | 'cancelled' | 'held') | null;
        downstream_status: ('accepted' | 'sent' | 'delivered' | 'read' | 'bounced' | 'failed' | 'complained') | null;
        provider_account: string;
        provider_message_id: string | null;
        idempotency_key: string;
        attempt_count: number;
        next_attempt_at: string | null;
        /** Format: date-time */
        expires_at: string;
        last_error_code: string | null;
        hold_reason: ('quiet_hours' | 'frequency_capped') | null;
        /** Format: date-time */
        created_at: string;
        /** Format: date-time */
        updated_at: string;
        sms?: {
          encoding: string;
          segments: number;
          units: number;
        };
        attempts: components['schemas']['Attempt'][];
      }[];
      reports: components['schemas']['Report'][];
      actions: components['schemas']['Action'][];
    };
    SchedulingPolicy: {
      time_zone: string;
      /** @description Per purpose; null: never held. */
      quiet_hours: {
        otp: {
          /** @description local time the window begins, HH:MM (24-hour) */
          start: string;
          /** @description local time it ends, HH:MM; before start means it wraps midnight */
          end: string;
        } | null;
        transactional: {
          /** @description local time the window begins, HH:MM (24-hour) */
          start: string;
          /** @description local time it ends, HH:MM; before start means it wraps midnight */
          end: string;
        } | null;
        conversational: {
          /** @description local time the window begins, HH:MM (24-hour) */
          start: string;
          /** @description local time it ends, HH:MM; before start means it wraps midnight */
          end: string;
        } | null;
        marketing: {
          /** @description local time the window begins, HH:MM (24-hour) */
          start: string;
          /** @description local time it ends, HH:MM; before start means it wraps midnight */
          end: string;
        } | null;
        alert: {
          /** @description local time the window begins, HH:MM (24-hour) */
          start: string;
          /** @description local time it ends, HH:MM; before start means it wraps midnight */
          end: string;
        } | null;
      };
      /** @description Per purpose; null: uncapped. */
      frequency_caps: {
        otp: {
          caps: {
            max: number;
            period_seconds: number;
          }[];
          /** @description over the cap: defer (until the cap allows, before expiry) or suppress */
          action: string;
        } | null;
        transactional: {
          caps: {
            max: number;
            period_seconds: number;
          }[];
          /** @description over the cap: defer (until the cap allows, before expiry) or suppress */
          action: string;
        } | null;
        conversational: {
          caps: {
            max: number;
            period_seconds: number;
          }[];
          /** @description over the cap: defer (until the cap allows, before expiry) or suppress */
          action: string;
        } | null;
        marketing: {
          caps: {
            max: number;
            period_seconds: number;
          }[];
          /** @description over the cap: defer (until the cap allows, before expiry) or suppress */
          action: string;
        } | null;
        alert: {
          caps: {
            max: number;
            period_seconds: number;
          }[];
          /** @description over the cap: defer (until the cap allows, before expiry) or suppress */
          action: string;
        } | null;
      };
      /**
       * Format: date-time
       * @description when the tenant last set its policy; null: the install's defaults apply
       */
      updated_at: string | null;
    };
    ReviewItem: {
      id: string;
      notification_id: string;
      /** @enum {string} */
      channel: 'email' | 'sms' | 'push';
      /** @enum {string} */
      purpose: 'otp' | 'transactional' | 'conversational' | 'marketing' | 'alert';
      /** @enum {string} */
      state: 'ready' | 'submitting' | 'accepted' | 'unknown' | 'retryable' | 'terminal';
      terminal_reason: ('expired' | 'exhausted' | 'rejected' | 'superseded' | 'suppressed' | 'unsubscribed' | 'unresolved' | 'cancelled' | 'held') | null;
      downstream_status: ('accepted' | 'sent' | 'delivered' | 'read' | 'bounced' | 'failed' | 'complained') | null;
      provider_account: string;
      provider_message_id: string | null;
      idempotency_key: string;
      attempt_count: number;
      next_attempt_at: string | null;
      /** Format: date-time */
      expires_at: string;
      last_error_code: string | null;
      hold_reason: ('quiet_hours' | 'frequency_capped') | null;
      /** Format: date-time */
      created_at: string;
      /** Format: date-time */
      updated_at: string;
      /** @enum {string} */
      review_reason: 'exhausted' | 'rejected' | 'unresolved' | 'unknown_overdue' | 'held';
    };
    ReviewPage: {
      items: components['schemas']['ReviewItem'][];
      next_cursor: string | null;
    };
    BulkRetry:
      | {
          /** @enum {boolean} */
          dry_run: true;
          matched: number;
          would_retry: number;
          refused: {
            reason: string;
            count: number;
          }[];
        }
      | {
          matched: number;
          scheduled: number;
          /** @description the deliveries not replayed, by reason */
          refused: {
            [key: string]: number;
          };
        };
    Stats: {
      /** Format: date-time */
      at: string;
      /** @description Deliveries per state, every state present. */
      deliveries: {
        ready: number;
        submitting: number;
        accepted: number;
        unknown: number;
        retryable: number;
        terminal: number;
      };
      /** @description Terminal deliveries per reason, every reason present. */
      terminal: {
        expired: number;
        exhausted: number;
        rejected: number;
        superseded: number;
        suppressed: number;
        unsubscribed: number;
        unresolved: number;
        cancelled: number;
        held: number;
      };
      unknown: {
        count: number;
        /** @description Since the oldest unknown delivery became unknown; 0 when none is. */
        oldest_age_seconds: number;
      };
      /** @description Due, unexpired work (ready or retryable, next_attempt_at passed) per provider account, lane and purpose; only groups with work. */
      due: {
        provider_account: string;
        lane: string;
        purpose: string;
        count: number;
        oldest_age_seconds: number;
      }[];
      /** @description Accepted deliveries whose downstream status has not moved past accepted for longer than metrics.accepted_progress_after_s. */
      accepted_without_progress: {
        provider_account: string;
        channel: string;
        count: number;
      }[];
      /** @description Deliveries that ended terminal/expired in the last hour without ever being accepted. */
      deadline_misses_last_hour: number;
      review_queue_size: number;
      provider_accounts: {
        id: string;
        /** @description This tenant's messages that failed in the last 15 minutes: ended rejected, exhausted, unresolved or expired without acceptance, or waiting to retry after a definite refusal. An offer to a phone is not a failure. */
        failures_last_15m: number;
        /** @description This tenant's attempts in the last 15 minutes that were definitely refused (retryable, throttled, permanent): attempts, not messages. */
        refused_attempts_last_15m: number;
        /**
         * @description The account's retry budget (every tenant's calls).
         * @enum {string}
         */
        retry_budget: 'healthy' | 'degraded';
        /**
         * Format: date-time
         * @description When a provider's throttle pause of the account ends; null when not paused.
         */
        paused_until: string | null;
      }[];
      series: {
        /** @enum {string} */
        window: 'hour' | 'day';
        /** @enum {integer} */
        bucket_seconds: 60 | 900;
        /** @description Oldest first; the last bucket contains `at`. */
        points: {
          /**
           * Format: date-time
           * @description Bucket start.
           */
          t: string;
          /** @description Attempts the provider accepted, and unknown ones (offers to a phone among them) that evidence later showed arrived. */
          accepted: number;
          /** @description Deliveries whose downstream status first reached sent, delivered or read. */
          confirmed: number;
          /** @description Failed messages (as failures_last_15m counts them) that entered their failed state in the bucket; the sum of failed_by_account. */
          failed: number;
          /** @description Deliveries unknown now that became unknown in the bucket. */
          unknown: number;
          /** @description The failed messages per provider account. */
          failed_by_account: {
            [key: string]: number;
          };
          /** @description Attempts definitely refused (retryable, throttled, permanent) in the bucket: attempts, not messages. */
          refused_attempts: number;
        }[];
      };
      reports: {
        duplicate: number;
        not_received: number;
      };
    };
    PhoneHealth: {
      /** Format: date-time */
      reported_at: string;
      battery_percent: number | null;
      /** @description On power: charging, or plugged in with a full battery. */
      charging: boolean | null;
      internet: boolean | null;
      transports: string[] | null;
      cellular: string | null;
      /** @description The app reports none today. */
      signal: number | null;
      /** @description Battery below 15 % and not charging: the operator alert fires (device choice does not read it yet, docs/inbound.md). */
      low_battery: boolean;
    };
    Device: {
      id: string;
      name: string;
      provider_account: string;
      online: boolean;
      /** @description SSE connections to this API process. */
      connections: number;
      /** Format: date-time */
      last_seen_at: string;
      away_since: string | null;
      queue_depth: number;
      failures_24h: number;
      sim_cards:
        | {
            slotIndex: number;
            simNumber: number;
            phoneNumber: string | null;
            carrierName: string | null;
            iccid: string | null;
          }[]
        | null;
      app_version: string | null;
      /** Format: date-time */
      registered_at: string;
      /** @description The device came back and its heartbeat sweep has not run yet. */
      sweep_pending: boolean;
      /** @description The phone's newest own report (`system:ping`): battery, power, network; null when it never pinged. */
      phone_health: components['schemas']['PhoneHealth'] | null;
    };
    DeviceList: {
      items: components['schemas']['Device'][];
    };
    DeviceDetail: {
      id: string;
      name: string;
      provider_account: string;
      online: boolean;
      /** @description SSE connections to this API process. */
      connections: number;
      /** Format: date-time */
      last_seen_at: string;
      away_since: string | null;
      queue_depth: number;
      failures_24h: number;
      sim_cards:
        | {
            slotIndex: number;
            simNumber: number;
            phoneNumber: string | null;
            carrierName: string | null;
            iccid: string | null;
          }[]
        | null;
      app_version: string | null;
      /** Format: date-time */
      registered_at: string;
      /** @description The device came back and its heartbeat sweep has not run yet. */
      sweep_pending: boolean;
      /** @description The phone's newest own report (`system:ping`): battery, power, network; null when it never pinged. */
      phone_health: components['schemas']['PhoneHealth'] | null;
      /** @description Who retried its messages, oldest first. */
      actions: components['schemas']['Action'][];
    };
    DeviceMessage: {
      /** @description The id the phone knows the offer by (stable for this submission). */
      message_id: string;
      delivery_id: string;
      device_id: string;
      seq: number;
      attempt: number;
      /** @description This offer is the delivery's current submission. */
      current: boolean;
      /** @enum {string} */
      state: 'offered' | 'pulled' | 'reoffered' | 'withdrawn' | 'reported';
      phone_state: ('Pending' | 'Processed' | 'Sent' | 'Delivered' | 'Failed' | 'Cancelling' | 'Cancelled') | null;
      phone_error: string | null;
      sent: boolean;
      sim_number: number | null;
      priority: number;
      /** Format: date-time */
      valid_until: string;
      /** Format: date-time */
      offered_at: string;
      pulled_at: string | null;
      pull_count: number;
      reoffered_at: string | null;
      reoffer_count: number;
      reported_at: string | null;
      provider_account: string;
      /** @enum {string} */
      delivery_state: 'ready' | 'submitting' | 'accepted' | 'unknown' | 'retryable' | 'terminal';
      terminal_reason: ('expired' | 'exhausted' | 'rejected' | 'superseded' | 'suppressed' | 'unsubscribed' | 'unresolved' | 'cancelled' | 'held') | null;
      downstream_status: ('accepted' | 'sent' | 'delivered' | 'read' | 'bounced' | 'failed' | 'complained') | null;
      /** @enum {string} */
      purpose: 'otp' | 'transactional' | 'conversational' | 'marketing' | 'alert';
    };
    DeviceMessagePage: {
      items: components['schemas']['DeviceMessage'][];
      next_cursor: string | null;
    };
    Sweep: {
      id: number;
      device_id: string;
      /** @enum {string} */
      cause: 'return' | 'operator';
      away_since: string | null;
      returned_at: string | null;
      /** Format: date-time */
      swept_at: string;
      retried: number;
      reoffered: number;
      skipped_expired: number;
    };
    SweepList: {
      items: components['schemas']['Sweep'][];
    };
    DeviceRetry: {
      /**
       * @description retried: a failed message got a new offer; reoffered: an unknown one was offered again under its same id.
       * @enum {string}
       */
      action: 'retried' | 'reoffered';
      message: components['schemas']['DeviceMessage'];
    };
    RouteChange: {
      /** @description <tenant>/<channel>/<purpose> */
      route: string;
      provider_account: string;
      /** @enum {string} */
      action: 'demote' | 'restore';
      reasons: ('slow_delivery' | 'over_retry_budget' | 'paused_by_throttling')[];
      /** Format: date-time */
      at: string;
      figures: {
        accepted: number;
        slow: number;
        calls: number;
        failures: number;
      };
    };
    ConfiguredRoute: {
      /** @description <tenant>/<channel>/<purpose> */
      route: string;
      /** @description `*` for a route every tenant takes */
      tenant: string;
      /** @enum {string} */
      channel: 'email' | 'sms' | 'push';
      /** @enum {string} */
      purpose: 'otp' | 'transactional' | 'conversational' | 'marketing' | 'alert' | 'default';
      /** @enum {string} */
      order: 'fixed' | 'latency';
      accounts: {
        provider_account: string;
        position: number;
        /** @enum {string} */
        state: 'in_service' | 'demoted';
        /** @description null: never changed */
        since: string | null;
        reasons: ('slow_delivery' | 'over_retry_budget' | 'paused_by_throttling')[];
        last_change: {
          /** @enum {string} */
          action: 'demote' | 'restore';
          /** Format: date-time */
          at: string;
          figures: {
            accepted: number;
            slow: number;
            calls: number;
            failures: number;
          };
        } | null;
      }[];
    };
    ProviderAccount: {
      id: string;
      kind: string;
      /** @enum {string} */
      channel: 'email' | 'sms' | 'push';
      /** @description The kind's settings that are safe to show (host, sender); never credentials. */
      settings: {
        [key: string]: unknown;
      };
      rate_per_second: number;
      burst: number;
      /** @enum {string} */
      ambiguity_policy: 'wait_for_evidence' | 'resend_same_key' | 'user_resend' | 'accept_duplicate';
      /**
       * @description The account's rollout stage: what its answers are allowed to trigger.
       * @enum {string}
       */
      rollout: 'shadow' | 'definite_retries' | 'full';
      /** @description The policy each purpose's unknown deliveries get. */
      ambiguity_policies: {
        /** @enum {string} */
        otp: 'wait_for_evidence' | 'resend_same_key' | 'user_resend' | 'accept_duplicate';
        /** @enum {string} */
        transactional: 'wait_for_evidence' | 'resend_same_key' | 'user_resend' | 'accept_duplicate';
        /** @enum {string} */
        conversational: 'wait_for_evidence' | 'resend_same_key' | 'user_resend' | 'accept_duplicate';
        /** @enum {string} */
        marketing: 'wait_for_evidence' | 'resend_same_key' | 'user_resend' | 'accept_duplicate';
        /** @enum {string} */
        alert: 'wait_for_evidence' | 'resend_same_key' | 'user_resend' | 'accept_duplicate';
      };
      timeout_ms: number;
      lanes: {
        name: string;
        purposes: ('otp' | 'transactional' | 'conversational' | 'marketing' | 'alert')[];
        guaranteed_share: number;
        guaranteed_rate: number | null;
        max_rate: number | null;
      }[];
      capabilities: {
        lookup: boolean;
        dedupes_by_key: boolean;
      };
      /** @description Whether delivery callbacks are accepted at /v1/callbacks/{id}; the secrets are never shown. */
      callbacks: boolean;
      evidence_window_seconds: number;
      lookup_grace_seconds: number;
      retry_budget: {
        /** @enum {string} */
        state: 'healthy' | 'degraded';
        window_seconds: number;
        calls: number;
        failures: number;
        failure_ratio: number;
        degraded_above: number;
        min_calls: number;
        spread: string;
      };
      /** @description Per route that ever changed it, where the account stands (never demoted: in service everywhere). */
      routes: {
        route: string;
        /** @enum {string} */
        state: 'in_service' | 'demoted';
        /** Format: date-time */
        since: string;
        reasons: ('slow_delivery' | 'over_retry_budget' | 'paused_by_throttling')[];
      }[];
    };
    ProviderAccountList: {
      items: components['schemas']['ProviderAccount'][];
      routes: components['schemas']['ConfiguredRoute'][];
      /** @description The last 24 hours, newest first. */
      route_changes: components['schemas']['RouteChange'][];
    };
    RecentErrors: {
      /** Format: date-time */
      at: string;
      items: {
        provider_account: string;
        attempts: {
          class: string;
          last_15m: number;
          last_1h: number;
          last_24h: number;
        }[];
        terminal: {
          reason: string;
          last_15m: number;
          last_1h: number;
          last_24h: number;
        }[];
      }[];
    };
    RolloutSummary: {
      id: string;
      /** @enum {string} */
      stage: 'shadow' | 'definite_retries' | 'full';
      /** @enum {string} */
      next_stage: 'shadow' | 'definite_retries' | 'full';
      window: {
        /** Format: date-time */
        from: string;
        /** Format: date-time */
        to: string;
      };
      decided_attempts: number;
      would_change: number;
      changes: {
        /** @enum {string} */
        decision:
          | 'accept'
          | 'retry_at'
          | 'reject'
          | 'exhaust'
          | 'expire'
          | 'review'
          | 'reconcile_lookup'
          | 'wait_for_evidence'
          | 'resend_same_key'
          | 'user_resend'
          | 'accept_duplicate';
        /** @enum {string} */
        next_stage_decision:
          | 'accept'
          | 'retry_at'
          | 'reject'
          | 'exhaust'
          | 'expire'
          | 'review'
          | 'reconcile_lookup'
          | 'wait_for_evidence'
          | 'resend_same_key'
          | 'user_resend'
          | 'accept_duplicate';
        attempts: number;
      }[];
      decisions: {
        /** @enum {string} */
        decision:
          | 'accept'
          | 'retry_at'
          | 'reject'
          | 'exhaust'
          | 'expire'
          | 'review'
          | 'reconcile_lookup'
          | 'wait_for_evidence'
          | 'resend_same_key'
          | 'user_resend'
          | 'accept_duplicate';
        /** @enum {string} */
        next_stage_decision:
          | 'accept'
          | 'retry_at'
          | 'reject'
          | 'exhaust'
          | 'expire'
          | 'review'
          | 'reconcile_lookup'
          | 'wait_for_evidence'
          | 'resend_same_key'
          | 'user_resend'
          | 'accept_duplicate';
        attempts: number;
      }[];
    };
    CampaignPlan: {
      audience_size: number;
      /** @description epoch ms */
      start_at: number;
      /** @description epoch ms */
      deadline_at: number;
      window_seconds: number;
      required_rate: number | null;
      available_rate: number;
      best_case_seconds: number | null;
      /** @description epoch ms */
      projected_finish_at: number | null;
      feasible: boolean;
      reason: ('nothing_to_send' | 'deadline_not_after_start' | 'no_capacity' | 'rate_too_low') | null;
      options: {
        start_earlier: {
          /** @description epoch ms */
          latest_start_at: number;
          earlier_by_ms: number;
          missed_by_ms: number;
        } | null;
        more_capacity: {
          lane_rate_needed: number;
          provider_rate_needed: number | null;
        } | null;
        smaller_audience: {
          max_audience: number;
        };
        later_deadline: {
          /** @description epoch ms */
          earliest_deadline_at: number;
        } | null;
      } | null;
      waves?:
        | {
            time_zone: string;
            recipients: number;
            /** @description epoch ms */
            send_from: number;
            /** @description epoch ms */
            projected_start: number;
            /** @description epoch ms */
            projected_finish: number;
            /** @description epoch ms */
            window_closes_at: number | null;
            fits_window: boolean;
            meets_deadline: boolean;
          }[]
        | null;
      wave_warnings?: ('deadline_missed' | 'window_missed')[];
      /** @description What the campaign drains through (campaigns/route-capacity.ts); absent from a plan stored before routes. */
      capacity?: {
        /** @description the route's key; null when the channel has no route of two accounts or more */
        route: string | null;
        accounts: {
          provider_account: string;
          lane: string;
          max_rate: number;
        }[];
        left_out: {
          provider_account: string;
          /** @enum {string} */
          reason: 'demoted';
        }[];
      };
    } & {
      [key: string]: unknown;
    };
    Campaign: {
      id: string;
      name: string | null;
      /** @enum {string} */
      status: 'draft' | 'running' | 'paused' | 'completed' | 'cancelled';
      /** @enum {string} */
      channel: 'email' | 'sms' | 'push';
      /** @enum {string} */
      purpose: 'otp' | 'transactional' | 'conversational' | 'marketing' | 'alert';
      provider_account: string;
      lane: string;
      lane_rate: number;
      audience: {
        id: string;
        size: number;
      };
      template: {
        id: string;
        version: number;
      } | null;
      /** Format: date-time */
      deadline_at: string;
      /** @description When its messages become due; null: when it started. */
      send_at: string | null;
      ttl_seconds: number;
      metadata: {
        [key: string]: unknown;
      } | null;
      plan: components['schemas']['CampaignPlan'] | null;
      progress: {
        audience_size: number;
        fanned_out: number;
        not_fanned_out: number;
        skipped: number;
        refused_by_code: {
          [key: string]: number;
        };
        queued: number;
        held: number;
        sending: number;
        unknown: number;
        accepted: number;
        sent: number;
        bounced: number;
        failed: number;
        expired: number;
        suppressed: number;
        unsubscribed: number;
        cancelled: number;
        /** @description Accepted deliveries by downstream status. */
        downstream: {
          [key: string]: number;
        };
        projected_finish: {
          remaining: number;
          rate: number;
          seconds_remaining: number | null;
          finish_at: string | null;
        };
      };
      /** Format: date-time */
      created_at: string;
      started_at: string | null;
      paused_at: string | null;
      finished_at: string | null;
    };
    CampaignDetail: {
      id: string;
      name: string | null;
      /** @enum {string} */
      status: 'draft' | 'running' | 'paused' | 'completed' | 'cancelled';
      /** @enum {string} */
      channel: 'email' | 'sms' | 'push';
      /** @enum {string} */
      purpose: 'otp' | 'transactional' | 'conversational' | 'marketing' | 'alert';
      provider_account: string;
      lane: string;
      lane_rate: number;
      audience: {
        id: string;
        size: number;
      };
      template: {
        id: string;
        version: number;
      } | null;
      /** Format: date-time */
      deadline_at: string;
      /** @description When its messages become due; null: when it started. */
      send_at: string | null;
      ttl_seconds: number;
      metadata: {
        [key: string]: unknown;
      } | null;
      plan: components['schemas']['CampaignPlan'] | null;
      progress: {
        audience_size: number;
        fanned_out: number;
        not_fanned_out: number;
        skipped: number;
        refused_by_code: {
          [key: string]: number;
        };
        queued: number;
        held: number;
        sending: number;
        unknown: number;
        accepted: number;
        sent: number;
        bounced: number;
        failed: number;
        expired: number;
        suppressed: number;
        unsubscribed: number;
        cancelled: number;
        /** @description Accepted deliveries by downstream status. */
        downstream: {
          [key: string]: number;
        };
        projected_finish: {
          remaining: number;
          rate: number;
          seconds_remaining: number | null;
          finish_at: string | null;
        };
      };
      /** Format: date-time */
      created_at: string;
      started_at: string | null;
      paused_at: string | null;
      finished_at: string | null;
      /** @description Who paused, resumed or cancelled it, oldest first. */
      actions: components['schemas']['Action'][];
    };
    CampaignPage: {
      items: components['schemas']['Campaign'][];
      next_cursor: string | null;
    };
    Audience: {
      id: string;
      /** @enum {string} */
      source: 'ndjson' | 'csv' | 'inline' | 'recipient_ids';
      size: number;
      /** @description Rows skipped because their recipient id was already in the audience (the first one is kept). */
      duplicates: number;
      /** @description How many recipients have each address. */
      with_address: {
        email: number;
        sms: number;
        push: number;
      };
      /** Format: date-time */
      created_at: string;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
