/** The problem with running on `version` (e.g. "20.20.2"), or undefined when it is new enough. */
export function nodeVersionProblem(version: string, engines?: string): string | undefined;
