/**
 * A sandbox setting that cannot be applied (a behaviour patch, a fault, a quota, a callback
 * registration): `field` names the offending field, which the control routes echo in their 400.
 * Each setting keeps its own subclass, so a caller can tell which input was refused.
 */
export abstract class SpecError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The body of a setting as a plain object, or `Refusal` naming `body` when it is not one; with
 * `known`, also refused naming the first field not in it.
 */
export function specBody(
  input: unknown,
  Refusal: new (field: string, message: string) => SpecError,
  known?: ReadonlySet<string>,
  shape = 'a JSON object',
): Record<string, unknown> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new Refusal('body', `body must be ${shape}`);
  const raw = input as Record<string, unknown>;
  if (known !== undefined) {
    for (const field of Object.keys(raw)) {
      if (!known.has(field)) throw new Refusal(field, `unknown field ${field}`);
    }
  }
  return raw;
}
