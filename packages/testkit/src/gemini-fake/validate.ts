import { invalid, unknownName } from './errors.js';

/**
 * The GenerateContentRequest as the API documents it (providers-international §2.2), in camelCase
 * or snake_case: the documented fields only (anything else is Google's "Unknown name"), one data
 * field per part, function responses right after the function calls they answer, and function
 * parameters in Gemini's Schema subset (so a gateway that leaks JSON Schema keywords such as
 * `additionalProperties` fails here as it would upstream).
 */
export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const OPAQUE = new Set(['args', 'response', 'parameters', 'parametersJsonSchema', 'responseSchema', 'responseJsonSchema']);
const toCamel = (k: string) => k.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** The body with camelCase field names (schemas, arguments and results keep theirs). */
export function camelize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelize);
  if (!isRecord(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [toCamel(k), OPAQUE.has(toCamel(k)) ? v : camelize(v)]));
}

const TOP_LEVEL = new Set(['model', 'contents', 'systemInstruction', 'generationConfig', 'safetySettings', 'tools', 'toolConfig', 'cachedContent']);
const PART_DATA = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult'];
const PART_EXTRA = new Set(['thought', 'thoughtSignature', 'videoMetadata']);
const GENERATION = new Set([
  'stopSequences', 'responseMimeType', 'responseSchema', 'responseJsonSchema', 'responseModalities', 'candidateCount', 'maxOutputTokens', 'temperature', 'topP',
  'topK', 'seed', 'presencePenalty', 'frequencyPenalty', 'responseLogprobs', 'logprobs', 'thinkingConfig', 'mediaResolution',
]);
const CATEGORIES = new Set(['HARM_CATEGORY_HARASSMENT', 'HARM_CATEGORY_HATE_SPEECH', 'HARM_CATEGORY_SEXUALLY_EXPLICIT', 'HARM_CATEGORY_DANGEROUS_CONTENT', 'HARM_CATEGORY_CIVIC_INTEGRITY']);
const THRESHOLDS = new Set(['BLOCK_NONE', 'BLOCK_ONLY_HIGH', 'BLOCK_MEDIUM_AND_ABOVE', 'BLOCK_LOW_AND_ABOVE', 'OFF', 'HARM_BLOCK_THRESHOLD_UNSPECIFIED']);
const SCHEMA_KEYS = new Set([
  'type', 'format', 'title', 'description', 'nullable', 'enum', 'maxItems', 'minItems', 'properties', 'required', 'minProperties', 'maxProperties',
  'minLength', 'maxLength', 'pattern', 'example', 'anyOf', 'propertyOrdering', 'default', 'items', 'minimum', 'maximum',
]);
const TOOL_KINDS = new Set(['functionDeclarations', 'googleSearch', 'googleSearchRetrieval', 'codeExecution', 'urlContext']);

function checkSchema(schema: unknown, at: string): void {
  if (!isRecord(schema)) throw invalid(`* ${at}: must be a Schema object`);
  for (const [k, v] of Object.entries(schema)) {
    if (!SCHEMA_KEYS.has(k)) throw unknownName(k, at);
    if (k === 'properties' && isRecord(v)) for (const [name, s] of Object.entries(v)) checkSchema(s, `${at}.properties[${name}]`);
    if (k === 'items') checkSchema(v, `${at}.items`);
    if (k === 'anyOf' && Array.isArray(v)) v.forEach((s, i) => checkSchema(s, `${at}.any_of[${i}]`));
  }
}

function checkParts(content: unknown, at: string): Array<Record<string, unknown>> {
  if (!isRecord(content)) throw invalid(`* ${at}: must be a Content object`);
  for (const k of Object.keys(content)) if (k !== 'role' && k !== 'parts') throw unknownName(k, at);
  if (!Array.isArray(content.parts) || content.parts.length === 0) throw invalid(`* GenerateContentRequest.${at}.parts: contents.parts must not be empty.`);
  return content.parts.map((p, j) => {
    const where = `${at}.parts[${j}]`;
    if (!isRecord(p)) throw invalid(`* ${where}: must be a Part object`);
    for (const k of Object.keys(p)) if (!PART_DATA.includes(k) && !PART_EXTRA.has(k)) throw unknownName(k, where);
    const data = PART_DATA.filter((k) => p[k] !== undefined);
    if (data.length !== 1) throw invalid(`* GenerateContentRequest.${where}.data: required oneof field 'data' must have one initialized field`);
    if (p.inlineData !== undefined) {
      const d = p.inlineData;
      if (!isRecord(d) || typeof d.mimeType !== 'string' || !d.mimeType) throw invalid(`* GenerateContentRequest.${where}.inline_data.mime_type: a mime type is required`);
      if (typeof d.data !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(d.data)) throw invalid(`Invalid value at '${where}.inline_data.data' (TYPE_BYTES), Base64 decoding failed`);
    }
    if (p.functionCall !== undefined && !(isRecord(p.functionCall) && typeof p.functionCall.name === 'string' && (p.functionCall.args === undefined || isRecord(p.functionCall.args)))) {
      throw invalid(`* GenerateContentRequest.${where}.function_call: name is required and args must be an object`);
    }
    if (p.functionResponse !== undefined && !(isRecord(p.functionResponse) && typeof p.functionResponse.name === 'string' && isRecord(p.functionResponse.response))) {
      throw invalid(`* GenerateContentRequest.${where}.function_response: name and an object response are required`);
    }
    return p;
  });
}

function checkContents(contents: unknown): void {
  if (!Array.isArray(contents) || contents.length === 0) throw invalid('* GenerateContentRequest.contents: contents is not specified');
  let calls: string[] = [];
  contents.forEach((c, i) => {
    const at = `contents[${i}]`;
    const parts = checkParts(c, at);
    const role = (c as Record<string, unknown>).role;
    if (role !== undefined && role !== 'user' && role !== 'model' && role !== 'function') throw invalid(`Please use a valid role: user, model.`);
    const responses = parts.filter((p) => p.functionResponse !== undefined).map((p) => String((p.functionResponse as Record<string, unknown>).name));
    if (responses.length) {
      if (role === 'model') throw invalid(`* GenerateContentRequest.${at}: function responses belong to a user turn`);
      if (calls.length === 0) throw invalid('Please ensure that function response turn comes immediately after a function call turn.');
      if (responses.length !== calls.length || responses.some((n) => !calls.includes(n))) {
        throw invalid('Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.');
      }
    }
    calls = role === 'model' ? parts.filter((p) => p.functionCall !== undefined).map((p) => String((p.functionCall as Record<string, unknown>).name)) : [];
  });
}

function checkGeneration(g: unknown): void {
  if (!isRecord(g)) throw invalid('* GenerateContentRequest.generation_config: must be an object');
  for (const k of Object.keys(g)) if (!GENERATION.has(k)) throw unknownName(k, 'generation_config');
  const int = (v: unknown) => typeof v === 'number' && Number.isInteger(v);
  if (g.maxOutputTokens !== undefined && !(int(g.maxOutputTokens) && (g.maxOutputTokens as number) > 0)) throw invalid('* GenerateContentRequest.generation_config.max_output_tokens: must be positive');
  if (g.temperature !== undefined && !(typeof g.temperature === 'number' && g.temperature >= 0 && g.temperature <= 2)) throw invalid('* GenerateContentRequest.generation_config.temperature: must be in [0, 2]');
  if (g.topP !== undefined && !(typeof g.topP === 'number' && g.topP >= 0 && g.topP <= 1)) throw invalid('* GenerateContentRequest.generation_config.top_p: must be in [0, 1]');
  if (g.candidateCount !== undefined && !(int(g.candidateCount) && (g.candidateCount as number) >= 1 && (g.candidateCount as number) <= 8)) throw invalid('* GenerateContentRequest.generation_config.candidate_count: must be in [1, 8]');
  if (g.stopSequences !== undefined && !(Array.isArray(g.stopSequences) && g.stopSequences.every((s) => typeof s === 'string'))) throw invalid('* GenerateContentRequest.generation_config.stop_sequences: must be a list of strings');
  if (g.responseMimeType !== undefined && !['text/plain', 'application/json', 'text/x.enum'].includes(String(g.responseMimeType))) {
    throw invalid(`* GenerateContentRequest.generation_config.response_mime_type: allowed mimetypes are text/plain, application/json, and text/x.enum.`);
  }
  if (g.responseSchema !== undefined) checkSchema(g.responseSchema, 'generation_config.response_schema');
  if (g.thinkingConfig !== undefined) {
    const t = g.thinkingConfig;
    if (!isRecord(t)) throw invalid('* GenerateContentRequest.generation_config.thinking_config: must be an object');
    for (const k of Object.keys(t)) if (!['thinkingBudget', 'includeThoughts', 'thinkingLevel'].includes(k)) throw unknownName(k, 'generation_config.thinking_config');
  }
}

function checkTools(tools: unknown, config: unknown): void {
  if (tools !== undefined) {
    if (!Array.isArray(tools)) throw invalid('* GenerateContentRequest.tools: must be a list');
    tools.forEach((t, i) => {
      if (!isRecord(t)) throw invalid(`* GenerateContentRequest.tools[${i}]: must be a Tool object`);
      for (const k of Object.keys(t)) if (!TOOL_KINDS.has(k)) throw unknownName(k, `tools[${i}]`);
      (Array.isArray(t.functionDeclarations) ? t.functionDeclarations : []).forEach((d, j) => {
        const at = `tools[${i}].function_declarations[${j}]`;
        if (!isRecord(d) || typeof d.name !== 'string' || !/^[a-zA-Z_][a-zA-Z0-9_.-]{0,63}$/.test(d.name)) throw invalid(`* GenerateContentRequest.${at}.name: Invalid function name.`);
        for (const k of Object.keys(d)) if (!['name', 'description', 'parameters', 'parametersJsonSchema', 'response', 'behavior'].includes(k)) throw unknownName(k, at);
        if (d.parameters !== undefined) checkSchema(d.parameters, `${at}.parameters`);
      });
    });
  }
  if (config === undefined) return;
  const fc = isRecord(config) ? config.functionCallingConfig : undefined;
  if (fc !== undefined && !(isRecord(fc) && ['AUTO', 'ANY', 'NONE', 'VALIDATED', undefined].includes(fc.mode as string | undefined))) {
    throw invalid('* GenerateContentRequest.tool_config.function_calling_config.mode: invalid mode');
  }
}

/** Throws a 400 GeminiError naming the first problem, as the real API would; returns the camelCase body. */
export function validateGenerateContent(raw: unknown): Record<string, unknown> {
  if (!isRecord(raw)) throw invalid('Invalid JSON payload received.');
  const body = camelize(raw) as Record<string, unknown>;
  for (const k of Object.keys(body)) if (!TOP_LEVEL.has(k)) throw unknownName(k);
  checkContents(body.contents);
  if (body.systemInstruction !== undefined) checkParts(body.systemInstruction, 'system_instruction');
  if (body.generationConfig !== undefined) checkGeneration(body.generationConfig);
  if (body.safetySettings !== undefined) {
    if (!Array.isArray(body.safetySettings)) throw invalid('* GenerateContentRequest.safety_settings: must be a list');
    body.safetySettings.forEach((s, i) => {
      if (!isRecord(s) || !CATEGORIES.has(String(s.category))) throw invalid(`* GenerateContentRequest.safety_settings[${i}].category: invalid category`);
      if (!THRESHOLDS.has(String(s.threshold))) throw invalid(`* GenerateContentRequest.safety_settings[${i}].threshold: invalid threshold`);
    });
  }
  checkTools(body.tools, body.toolConfig);
  return body;
}
