// Vendored interfaces of the Standard Schema spec (https://standardschema.dev), v1.1, so core has no
// runtime or type dependency. zod ≥ 4.2, valibot and arktype implement them.

/** A schema that validates values (the Standard Schema `~standard` contract). */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1.Props<Input, Output>;
}

/** Types and props of {@link StandardSchemaV1}. */
export declare namespace StandardSchemaV1 {
  /** The `~standard` property. */
  export interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
    /** Present when the schema can also describe itself as JSON Schema (Standard JSON Schema). */
    readonly jsonSchema?: StandardJSONSchemaV1.Converter | undefined;
  }
  /** The result of `validate`. */
  export type Result<Output> = SuccessResult<Output> | FailureResult;
  /** A successful validation. */
  export interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  /** A failed validation. */
  export interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  /** One validation issue. */
  export interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  /** One segment of an issue path. */
  export interface PathSegment {
    readonly key: PropertyKey;
  }
  /** Phantom input/output types. */
  export interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
  /** The output type of a schema. */
  export type InferOutput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['output'];
  /** The input type of a schema. */
  export type InferInput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['input'];
}

/** The Standard JSON Schema converter carried on `~standard.jsonSchema`. */
export declare namespace StandardJSONSchemaV1 {
  /** Options of a conversion. */
  export interface Options {
    readonly target: 'draft-2020-12' | 'draft-07' | 'openapi-3.0' | (string & {});
  }
  /** Converts a schema's input or output side to JSON Schema. */
  export interface Converter {
    readonly input: (options: Options) => Record<string, unknown>;
    readonly output: (options: Options) => Record<string, unknown>;
  }
}

/** True when `value` implements {@link StandardSchemaV1}. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return typeof value === 'object' && value !== null && '~standard' in value;
}
