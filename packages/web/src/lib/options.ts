/**
 * The super admin's options (`GET/PUT /api/option/`), typed by the shared option registry: a key
 * that is not an option does not compile, each value reads back as its kind, and a form can check
 * a value with the rules the server applies before sending it.
 */
import { OPTION_REGISTRY, isOptionKey, isSecretOption, normaliseOption, optionValue, type OptionCheck, type OptionKey, type OptionValue } from '@modelgate/shared';
import { call } from './api';

/** Stored option strings by key; a key this console does not know (a newer server) is dropped. */
export type OptionMap = Partial<Record<OptionKey, string>>;

export const optionKeys = { all: ['options'] as const };

export async function fetchOptions(): Promise<OptionMap> {
  const list = await call('GET /api/option/');
  const options: OptionMap = {};
  for (const { key, value } of Array.isArray(list) ? list : []) if (isOptionKey(key)) options[key] = value;
  return options;
}

/** The typed value of one option; a missing or unreadable one is the registry's default. */
export function readOption<K extends OptionKey>(options: OptionMap, key: K): OptionValue<K> {
  return optionValue(key, options[key]);
}

/**
 * The server's own check of a value (spec §5), against the other options as loaded. Secrets never
 * reach the console, so one a rule needs counts as filled: the server has the last word on those.
 */
export function checkOption(options: OptionMap, key: OptionKey, value: unknown): OptionCheck {
  return normaliseOption(key, value, (other) => options[other] ?? (isSecretOption(other) ? '(set on the server)' : OPTION_REGISTRY[other].default));
}

/** `silent`: the caller words the failure itself (e.g. naming the field). */
export function saveOption(key: OptionKey, value: string | number | boolean, silent = false): Promise<unknown> {
  return call('PUT /api/option/', { body: { key, value: String(value) }, silent });
}
