"""Signs the requests on stdin with botocore's SigV4 (the AWS CLI's and moto's implementation) and
prints each signature: an independent check of lambdas/aws/sigv4.ts."""
import json
import sys

from botocore.auth import S3SigV4Auth, SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

out = []
for c in json.load(sys.stdin):
    creds = Credentials(c["accessKeyId"], c["secretAccessKey"], c.get("sessionToken"))
    auth = (S3SigV4Auth if c["service"] == "s3" else SigV4Auth)(creds, c["service"], c["region"])
    body = c["body"].encode("utf-8") if c.get("body") else None
    req = AWSRequest(method=c["method"], url="https://" + c["host"] + c["path"], data=body)
    for k, v in c["headers"].items():
        if k != "authorization":
            req.headers[k] = v
    req.context["timestamp"] = c["headers"]["x-amz-date"]
    canonical = auth.canonical_request(req)
    out.append(auth.signature(auth.string_to_sign(req, canonical), req))
print(json.dumps(out))
