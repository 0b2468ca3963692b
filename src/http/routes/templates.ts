/**
 * Message templates: `POST /v1/templates` creates one (an id the tenant chooses, a name, a
 * default locale, optionally its first version), `POST /v1/templates/:id/versions` saves a new
 * immutable version (compiled and checked first: a version that does not compile is refused,
 * 422 template_invalid), `.../versions/:v/publish` makes it the default, and
 * `.../versions/:v/preview` renders it with given data and locale without sending or storing
 * anything. docs/templates.md describes the model.
 */
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { CHANNELS, type Channel } from '../../domain/index.js';
import { HeraldError } from '../../errors.js';
import type { Store, TemplateRecord, TemplateVersionRecord } from '../../store/store.js';
import { compileVersion, type TemplateLocaleInput } from '../../templates/template-compiler.js';
import type { TemplateRenderer } from '../../templates/template-renderer.js';

const problemRef = { $ref: 'problem#' };
const iso = (t: number) => new Date(t).toISOString();
const LOCALE = '^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$';
const ID = '^[a-z0-9][a-z0-9_.-]{0,63}$';
const liquid = (max: number) => ({ type: 'string', minLength: 1, maxLength: max });

const localePartsSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    email: {
      type: 'object',
      additionalProperties: false,
      required: ['subject'],
      properties: { subject: liquid(998), html: liquid(196608), mjml: liquid(196608), text: liquid(65536) },
    },
    sms: { type: 'object', additionalProperties: false, required: ['text'], properties: { text: liquid(4096) } },
    push: {
      type: 'object',
      additionalProperties: false,
      required: ['body'],
      properties: { title: liquid(512), body: liquid(4096), data: { type: 'object', maxProperties: 20, additionalProperties: liquid(1024) } },
    },
  },
} as const;

const versionBodySchema = {
  type: 'object',
  additionalProperties: false,
  required: ['locales'],
  properties: {
    locales: {
      type: 'object',
      minProperties: 1,
      maxProperties: 50,
      propertyNames: { pattern: LOCALE, maxLength: 35 },
      additionalProperties: localePartsSchema,
    },
    publish: { type: 'boolean', description: 'Make this version the published (default) one.' },
  },
} as const;

/** A template as the API shows it. */
export function templateJson(t: TemplateRecord) {
  return {
    id: t.id,
    name: t.name,
    default_locale: t.defaultLocale,
    published_version: t.publishedVersion,
    latest_version: t.latestVersion,
    created_at: iso(t.createdAt),
    updated_at: iso(t.updatedAt),
  };
}

/** A version as the API shows it: its parts per locale as saved (e-mail html compiled from mjml). */
export function templateVersionJson(v: TemplateVersionRecord, published: number | null) {
  return { template_id: v.templateId, version: v.version, published: v.version === published, locales: v.locales, created_at: iso(v.createdAt) };
}

interface VersionBody {
  locales: Record<string, TemplateLocaleInput>;
  publish?: boolean;
}

/** Registers the template routes on an authenticated scope. */
export function templateRoutes(app: FastifyInstance, deps: { store: Store; renderer: TemplateRenderer; clock: Clock }): void {
  const clock = deps.clock;
  const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string', maxLength: 64 } } } as const;
  const versionParams = {
    type: 'object',
    required: ['id', 'v'],
    properties: { id: { type: 'string', maxLength: 64 }, v: { type: 'string', pattern: '^[1-9][0-9]{0,8}$' } },
  } as const;

  const templateOf = async (tenantId: string, id: string) => {
    const t = await deps.store.templates.get(tenantId, id);
    if (!t) throw new HeraldError('not_found', `no template ${id}`);
    return t;
  };
  const saveVersion = async (t: TemplateRecord, body: VersionBody) => {
    const locales = compileVersion(body.locales, t.defaultLocale);
    const saved = await deps.store.templates.addVersion(t.tenantId, t.id, locales, body.publish === true, clock.now());
    if (!saved) throw new HeraldError('not_found', `no template ${t.id}`);
    return saved;
  };

  app.post<{ Body: { id: string; name: string; default_locale: string; version?: VersionBody } }>(
    '/v1/templates',
    {
      schema: {
        summary: 'Create a template, optionally with its first version',
        tags: ['templates'],
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['id', 'name', 'default_locale'],
          properties: {
            id: { type: 'string', pattern: ID, description: 'The name requests use (`template.id`): lower case, digits, `_ . -`.' },
            name: { type: 'string', minLength: 1, maxLength: 200 },
            default_locale: { type: 'string', pattern: LOCALE, maxLength: 35, description: 'The end of every fallback chain; every version has parts for it.' },
            version: versionBodySchema,
          },
        },
        response: { 400: problemRef, 401: problemRef, 409: problemRef, 422: problemRef },
      },
    },
    async (request, reply) => {
      const { id, name, default_locale: defaultLocale, version } = request.body;
      // Checked before anything is written: a first version that does not compile creates nothing.
      if (version) compileVersion(version.locales, defaultLocale);
      const created = await deps.store.templates.create({ tenantId: request.tenantId, id, name, defaultLocale, now: clock.now() });
      if (!created)
        throw new HeraldError('template_exists', `template ${id} already exists; add a version to it instead`, [{ field: 'id', message: 'is taken' }]);
      const first = version ? await saveVersion(created, version) : null;
      const t = first ? await templateOf(request.tenantId, id) : created;
      reply.code(201);
      return { ...templateJson(t), ...(first ? { version: templateVersionJson(first, t.publishedVersion) } : {}) };
    },
  );

  app.get('/v1/templates', { schema: { summary: "The tenant's templates, by id", tags: ['templates'], response: { 401: problemRef } } }, async (request) => ({
    items: (await deps.store.templates.list(request.tenantId)).map(templateJson),
  }));

  app.get<{ Params: { id: string } }>(
    '/v1/templates/:id',
    { schema: { summary: 'One template', tags: ['templates'], params: idParams, response: { 401: problemRef, 404: problemRef } } },
    async (request) => templateJson(await templateOf(request.tenantId, request.params.id)),
  );

  app.post<{ Params: { id: string }; Body: VersionBody }>(
    '/v1/templates/:id/versions',
    {
      schema: {
        summary: 'Save a new immutable version (compiled first; refused whole if it does not compile)',
        tags: ['templates'],
        params: idParams,
        body: versionBodySchema,
        response: { 400: problemRef, 401: problemRef, 404: problemRef, 422: problemRef },
      },
    },
    async (request, reply) => {
      const t = await templateOf(request.tenantId, request.params.id);
      const saved = await saveVersion(t, request.body);
      reply.code(201);
      return templateVersionJson(saved, request.body.publish === true ? saved.version : t.publishedVersion);
    },
  );

  app.get<{ Params: { id: string; v: string } }>(
    '/v1/templates/:id/versions/:v',
    { schema: { summary: 'One version, as saved', tags: ['templates'], params: versionParams, response: { 401: problemRef, 404: problemRef } } },
    async (request) => {
      const t = await templateOf(request.tenantId, request.params.id);
      const v = await deps.store.templates.getVersion(request.tenantId, t.id, Number(request.params.v));
      if (!v) throw new HeraldError('not_found', `template ${t.id} has no version ${request.params.v}`);
      return templateVersionJson(v, t.publishedVersion);
    },
  );

  app.post<{ Params: { id: string; v: string } }>(
    '/v1/templates/:id/versions/:v/publish',
    {
      schema: {
        summary: 'Make a version the published one (requests without `template.version` use it from now on; queued messages keep theirs)',
        tags: ['templates'],
        params: versionParams,
        response: { 401: problemRef, 404: problemRef },
      },
    },
    async (request) => {
      const t = await deps.store.templates.publish(request.tenantId, request.params.id, Number(request.params.v), clock.now());
      if (!t) throw new HeraldError('not_found', `no template ${request.params.id} with a version ${request.params.v}`);
      return templateJson(t);
    },
  );

  app.post<{ Params: { id: string; v: string }; Body: { data?: Record<string, unknown>; locale?: string; channels?: Channel[] } }>(
    '/v1/templates/:id/versions/:v/preview',
    {
      schema: {
        summary: 'Render a version with data and a locale; nothing is sent or stored',
        tags: ['templates'],
        params: versionParams,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            data: { type: 'object' },
            locale: { type: 'string', pattern: LOCALE, maxLength: 35 },
            channels: {
              type: 'array',
              minItems: 1,
              uniqueItems: true,
              items: { type: 'string', enum: [...CHANNELS] },
              description: 'Default: every channel the resolved locale has.',
            },
          },
        },
        response: { 400: problemRef, 401: problemRef, 404: problemRef, 422: problemRef },
      },
    },
    async (request) => {
      const t = await templateOf(request.tenantId, request.params.id);
      const version = await deps.store.templates.getVersion(request.tenantId, t.id, Number(request.params.v));
      if (!version) throw new HeraldError('not_found', `template ${t.id} has no version ${request.params.v}`);
      const ref = { id: t.id, version: version.version, ...(request.body?.locale ? { locale: request.body.locale } : {}), data: request.body?.data ?? {} };
      const pinned = { template: t, version };
      // Without channels: those of the locale the chain resolves to for any channel.
      const channels = request.body?.channels ?? previewChannels(deps.renderer, pinned, ref);
      const r = deps.renderer.render(pinned, ref, null, channels);
      return { template_id: r.templateId, version: r.version, locale: r.locale, inputs_hash: r.inputsHash, parts: r.parts };
    },
  );
}

/** The channels a preview renders when none are asked for: those of the first locale of the chain the version has. */
function previewChannels(
  renderer: TemplateRenderer,
  pinned: { template: TemplateRecord; version: TemplateVersionRecord },
  ref: { locale?: string },
): Channel[] {
  const locale = renderer.localeFor(pinned, ref.locale ?? null, []);
  const parts = pinned.version.locales[locale]!;
  return CHANNELS.filter((c) => parts[c] !== undefined);
}
