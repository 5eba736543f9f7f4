/** A request the server refused: its HTTP status, the problem's `code` and `detail`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The error of a failed response (an `application/problem+json` body when there is one). */
  static async from(response: Response): Promise<ApiError> {
    let problem: { detail?: unknown; title?: unknown; code?: unknown } = {};
    try {
      problem = (await response.json()) as typeof problem;
    } catch {
      // Not JSON (a proxy's page): the status says enough.
    }
    const message =
      typeof problem.detail === 'string'
        ? problem.detail
        : typeof problem.title === 'string'
          ? problem.title
          : `The server answered ${response.status}.`;
    return new ApiError(response.status, message, typeof problem.code === 'string' ? problem.code : null);
  }
}
