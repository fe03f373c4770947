/** Channel types in the spec §3 order, with the reference's tag colours. Labels live in i18n (`channel:type.<id>`). */
export const CHANNEL_TYPES: { value: number; color: string }[] = [
  { value: 1, color: 'green' },
  { value: 2, color: 'geekblue' },
  { value: 5, color: 'blue' },
  { value: 36, color: 'green' },
  { value: 4, color: 'default' },
  { value: 14, color: 'purple' },
  { value: 33, color: 'purple' },
  { value: 41, color: 'blue' },
  { value: 3, color: 'cyan' },
  { value: 34, color: 'magenta' },
  { value: 39, color: 'default' },
  { value: 43, color: 'blue' },
  { value: 15, color: 'blue' },
  { value: 17, color: 'orange' },
  { value: 18, color: 'blue' },
  { value: 16, color: 'purple' },
  { value: 26, color: 'magenta' },
  { value: 24, color: 'orange' },
  { value: 11, color: 'orange' },
  { value: 25, color: 'green' },
  { value: 19, color: 'default' },
  { value: 23, color: 'cyan' },
  { value: 31, color: 'green' },
  { value: 35, color: 'green' },
  { value: 37, color: 'cyan' },
  { value: 38, color: 'blue' },
  { value: 40, color: 'purple' },
  { value: 42, color: 'blue' },
  { value: 8, color: 'pink' },
  { value: 22, color: 'blue' },
  { value: 21, color: 'purple' },
];

export function typeColor(type: number): string {
  return CHANNEL_TYPES.find((option) => option.value === type)?.color ?? 'default';
}

export const AZURE_DEFAULT_VERSION = '2023-06-01-preview';
export const SPARK_DEFAULT_VERSION = 'v2.1';

const MJ_MODELS = ['mj_imagine', 'mj_variation', 'mj_reroll', 'mj_blend', 'mj_upscale', 'mj_describe', 'mj_uploads'];

/** Spec §4: these types have fixed model lists; every other type takes the server's list for it. */
export const FIXED_TYPE_MODELS: Record<number, string[]> = {
  2: MJ_MODELS,
  5: [
    ...MJ_MODELS,
    'swap_face',
    'mj_zoom',
    'mj_shorten',
    'mj_modal',
    'mj_inpaint',
    'mj_custom_zoom',
    'mj_high_variation',
    'mj_low_variation',
    'mj_pan',
  ],
  36: ['suno_music', 'suno_lyrics'],
};

export function modelsForType(type: number, byType: Record<string, string[]> | undefined): string[] {
  return FIXED_TYPE_MODELS[type] ?? byType?.[String(type)] ?? [];
}

/** Types that cannot be tested (reference §6.1: MJ, MJ Plus and Suno). */
export const UNTESTABLE_TYPES = new Set([2, 5, 36]);

/** Types whose balance the server can query (reference §6.2). */
export const BALANCE_TYPES = new Set([1, 8, 10, 12, 13]);

/** Which extra fields a type shows (spec §3 "type-specific form fields"). */
export interface TypeFields {
  /** How base_url is labelled: the generic optional proxy, or a type's own required address. */
  baseUrl: 'proxy' | 'azure' | 'custom' | 'fastgpt' | 'suno' | 'none';
  /** What `other` holds, if anything. */
  other?: 'azureVersion' | 'sparkVersion' | 'knowledgeId' | 'accountId' | 'vertexRegion';
  organization?: boolean;
  /** The key is a multi-line JSON credential. */
  jsonKey?: boolean;
}

export function typeFields(type: number): TypeFields {
  switch (type) {
    case 1:
      return { baseUrl: 'proxy', organization: true };
    case 3:
      return { baseUrl: 'azure', other: 'azureVersion' };
    case 8:
      return { baseUrl: 'custom' };
    case 18:
      return { baseUrl: 'proxy', other: 'sparkVersion' };
    case 21:
      return { baseUrl: 'proxy', other: 'knowledgeId' };
    case 22:
      return { baseUrl: 'fastgpt' };
    case 36:
      return { baseUrl: 'suno' };
    case 39:
      return { baseUrl: 'proxy', other: 'accountId' };
    case 41:
      return { baseUrl: 'none', other: 'vertexRegion', jsonKey: true };
    default:
      return { baseUrl: 'proxy' };
  }
}
