/** A JSON primitive. */
export type JSONPrimitive = string | number | boolean | null;
/** Any value that survives `JSON.stringify` → `JSON.parse` unchanged. */
export type JSONValue = JSONPrimitive | JSONValue[] | { [key: string]: JSONValue };
/** A JSON object. */
export type JSONObject = { [key: string]: JSONValue };
/** A JSON Schema document (draft 2020-12 or 07), as plain data. */
export type JSONSchema = { [key: string]: unknown };
