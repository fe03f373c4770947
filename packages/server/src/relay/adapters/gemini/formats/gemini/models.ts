/** The Gemini family's model names, shared by every host that serves them (Gemini's API, Vertex AI). */
export const GEMINI_MODELS = [
  'gemini-3.1-pro-preview',
  'gemini-3-pro-preview',
  'gemini-3-flash-preview',
  'gemini-3.1-flash-lite-preview',
  'gemini-2.5-pro',
  'gemini-2.5-flash',
  'gemini-2.5-flash-lite',
  'gemini-2.0-flash',
  'gemini-2.0-flash-lite',
  'gemini-1.5-pro-latest',
  'gemini-1.5-flash-latest',
  'text-embedding-004',
  'gemini-embedding-001',
] as const;
