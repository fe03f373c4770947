/**
 * Anthropic model names → Bedrock model ids (providers-international §5.1). A name that already is
 * a Bedrock id (`anthropic.…`, an inference profile `us.anthropic.…`, an ARN) is sent as it is.
 */
const MODEL_IDS: Record<string, string> = {
  'claude-instant-1.2': 'anthropic.claude-instant-v1',
  'claude-2.0': 'anthropic.claude-v2',
  'claude-2.1': 'anthropic.claude-v2:1',
  'claude-3-haiku-20240307': 'anthropic.claude-3-haiku-20240307-v1:0',
  'claude-3-sonnet-20240229': 'anthropic.claude-3-sonnet-20240229-v1:0',
  'claude-3-opus-20240229': 'anthropic.claude-3-opus-20240229-v1:0',
  'claude-3-5-sonnet-20240620': 'anthropic.claude-3-5-sonnet-20240620-v1:0',
  'claude-3-5-sonnet-20241022': 'anthropic.claude-3-5-sonnet-20241022-v2:0',
  'claude-3-5-haiku-20241022': 'anthropic.claude-3-5-haiku-20241022-v1:0',
  'claude-3-7-sonnet-20250219': 'anthropic.claude-3-7-sonnet-20250219-v1:0',
  'claude-sonnet-4-20250514': 'anthropic.claude-sonnet-4-20250514-v1:0',
  'claude-opus-4-20250514': 'anthropic.claude-opus-4-20250514-v1:0',
};

export const BEDROCK_MODELS = Object.keys(MODEL_IDS);

/**
 * Cross-region inference profiles: the newer Claude models are served on demand only through a
 * geography's profile (`us.`, `eu.`, `apac.` + the model id). As the reference does, a profile is
 * used when the channel's region belongs to a geography that offers the model.
 */
const PROFILES: Record<string, ReadonlySet<string>> = {
  us: new Set([
    'anthropic.claude-3-haiku-20240307-v1:0',
    'anthropic.claude-3-sonnet-20240229-v1:0',
    'anthropic.claude-3-opus-20240229-v1:0',
    'anthropic.claude-3-5-sonnet-20240620-v1:0',
    'anthropic.claude-3-5-sonnet-20241022-v2:0',
    'anthropic.claude-3-5-haiku-20241022-v1:0',
    'anthropic.claude-3-7-sonnet-20250219-v1:0',
    'anthropic.claude-sonnet-4-20250514-v1:0',
    'anthropic.claude-opus-4-20250514-v1:0',
  ]),
  eu: new Set([
    'anthropic.claude-3-haiku-20240307-v1:0',
    'anthropic.claude-3-sonnet-20240229-v1:0',
    'anthropic.claude-3-5-sonnet-20240620-v1:0',
    'anthropic.claude-3-7-sonnet-20250219-v1:0',
    'anthropic.claude-sonnet-4-20250514-v1:0',
  ]),
  apac: new Set([
    'anthropic.claude-3-haiku-20240307-v1:0',
    'anthropic.claude-3-sonnet-20240229-v1:0',
    'anthropic.claude-3-5-sonnet-20240620-v1:0',
    'anthropic.claude-3-5-sonnet-20241022-v2:0',
    'anthropic.claude-3-7-sonnet-20250219-v1:0',
    'anthropic.claude-sonnet-4-20250514-v1:0',
  ]),
};

/** `us-east-1` → `us`, `eu-west-3` → `eu`, `ap-northeast-1` → `apac`; other geographies have no profiles here. */
function geography(region: string): string | undefined {
  const head = region.split('-')[0];
  if (head === 'us' || head === 'eu') return head;
  if (head === 'ap') return 'apac';
  return undefined;
}

/** The model id to invoke for `model` through a channel in `region`. */
export function bedrockModelId(model: string, region: string): string {
  const id = MODEL_IDS[model];
  if (!id) return model;
  const geo = geography(region);
  return geo && PROFILES[geo]?.has(id) ? `${geo}.${id}` : id;
}
