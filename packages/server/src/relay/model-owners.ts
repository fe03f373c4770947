/** `owned_by` of a model in `/v1/models`, by name prefix; unknown models are "custom" (reference §3.9). */
const OWNERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^(gpt-|o1|o3|chatgpt-|text-embedding-|text-moderation-|omni-moderation-|dall-e-|whisper-|tts-|davinci|babbage)/, 'openai'],
  [/^claude-/, 'anthropic'],
  [/^(gemini-|text-bison|chat-bison)/, 'google'],
  [/^(mistral-|open-mistral|codestral|mixtral)/, 'mistralai'],
  [/^deepseek-/, 'deepseek'],
  [/^moonshot-/, 'moonshot'],
  [/^command/, 'cohere'],
  [/^(glm-|chatglm)/, 'zhipu'],
  [/^qwen/, 'alibaba'],
  [/^ERNIE/, 'baidu'],
  [/^yi-/, '01.ai'],
];

export function modelOwner(model: string): string {
  for (const [re, owner] of OWNERS) if (re.test(model)) return owner;
  return 'custom';
}

export function modelObject(id: string) {
  return { id, object: 'model', created: 1626777600, owned_by: modelOwner(id), permission: [], root: id, parent: null };
}
