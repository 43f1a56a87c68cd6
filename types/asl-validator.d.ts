declare module 'asl-validator' {
  export interface AslValidatorOptions {
    readonly checkPaths?: boolean;
    readonly checkArn?: boolean;
  }
  export interface AslValidatorResult {
    readonly isValid: boolean;
    readonly errors: ReadonlyArray<{ readonly message?: string }>;
    readonly errorsText: (separator?: string) => string;
  }
  export default function aslValidator(definition: unknown, opts?: AslValidatorOptions): AslValidatorResult;
}
