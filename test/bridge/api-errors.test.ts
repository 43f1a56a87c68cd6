/** API errors read as status, reason, message: never client-node's escaped exception text. */
import { ApiException } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { asKubeApiError, describeError, KubeApiError, kubeStatusOf } from '../../bridge/api-errors.js';

// What client-node 1.x throws for a 404 from the API server: the body is the raw response text.
const status = {
  kind: 'Status',
  apiVersion: 'v1',
  status: 'Failure',
  message: 'namespaces "missing" not found',
  reason: 'NotFound',
  details: { name: 'missing', kind: 'namespaces' },
  code: 404,
};
const notFound = new ApiException(404, 'Unknown API Status Code!', JSON.stringify(status), {});

describe('Kubernetes API errors in logs', () => {
  it('reads the Status body of an ApiException', () => {
    expect(notFound.message).toContain('HTTP-Code: 404'); // what would be logged without this module
    expect(kubeStatusOf(notFound)).toEqual({
      code: 404,
      reason: 'NotFound',
      message: 'namespaces "missing" not found',
    });
    expect(describeError(notFound)).toBe(
      'KubeApiError: status 404, reason NotFound, message namespaces "missing" not found',
    );
  });

  it('names the call when wrapping, and keeps the code for classification', () => {
    const err = asKubeApiError('create lease', notFound);
    expect(err).toBeInstanceOf(KubeApiError);
    expect((err as KubeApiError).code).toBe(404);
    expect(describeError(err)).toBe(
      'KubeApiError: create lease: status 404, reason NotFound, message namespaces "missing" not found',
    );
  });

  it('a body that is not a Status is kept short and unescaped; other errors pass through', () => {
    const html = new ApiException(502, 'Bad Gateway', '<html>bad gateway</html>', {});
    expect(describeError(html)).toBe(
      'KubeApiError: status 502, reason unknown, message <html>bad gateway</html>',
    );
    const plain = new Error('socket hang up');
    expect(asKubeApiError('get', plain)).toBe(plain);
    expect(describeError(plain)).toBe('Error: socket hang up');
  });
});
