"""S3-compatible object storage (AWS S3, MinIO, Ceph, R2…): the objects under a prefix of a bucket.

The version is the object's ETag. Credentials: `aws_access_key_id`, `aws_secret_access_key` and
`aws_session_token` from the source's secrets file or BUNKO_SOURCE_<NAME>_<KEY>, else whatever boto3 finds
itself (AWS_ACCESS_KEY_ID…, ~/.aws, an instance role). Needs the `s3` extra (boto3).
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath
from typing import Any, Literal

from pydantic import Field

from bunko.errors import DocumentError
from bunko.ingest.connectors.base import Item, Listing, NamedSource, Secrets, SourceError, SourceSpec, safe_file_name
from bunko.schema import ErrorCode


class S3Spec(SourceSpec):
    type: Literal["s3"] = "s3"
    bucket: str = Field(min_length=1)
    prefix: str = Field("", description="Only objects whose key starts with this.")
    endpoint_url: str | None = Field(None, description="An S3-compatible server's address (MinIO, Ceph…); default AWS.")
    region: str | None = Field(None, description="The bucket's region (default: boto3's, else us-east-1).")

    def target(self) -> str:
        where = f"s3://{self.bucket}/{self.prefix}"
        return f"{where} at {self.endpoint_url}" if self.endpoint_url else where


class S3Source(NamedSource):
    def __init__(self, name: str, spec: S3Spec, secrets: Secrets) -> None:
        self.name = name
        self.spec = spec
        try:
            import boto3
            from botocore.config import Config as BotoConfig
        except ImportError:
            raise SourceError(f"source {name}: S3 sources need boto3: pip install 'bunko[s3]'") from None
        credentials: dict[str, Any] = {
            key: secrets.get(key) for key in ("aws_access_key_id", "aws_secret_access_key", "aws_session_token")
        }
        self._client = boto3.session.Session().client(
            "s3", endpoint_url=spec.endpoint_url, region_name=spec.region or secrets.get("region", ["AWS_DEFAULT_REGION"]) or "us-east-1",
            config=BotoConfig(
                retries={"max_attempts": 3, "mode": "standard"}, connect_timeout=10, read_timeout=60,
                s3={"addressing_style": "path"} if spec.endpoint_url else None,  # what S3-compatible servers answer to
            ),
            **{k: v for k, v in credentials.items() if v},
        )

    def list_items(self) -> Listing:
        from botocore.exceptions import BotoCoreError, ClientError

        items = []
        try:
            for page in self._client.get_paginator("list_objects_v2").paginate(Bucket=self.spec.bucket, Prefix=self.spec.prefix):
                for obj in page.get("Contents", []):
                    key = obj["Key"]
                    if key.endswith("/"):  # a "folder" marker, not a document
                        continue
                    items.append(Item(key, str(obj.get("ETag", "")).strip('"'), PurePosixPath(key).suffix, obj.get("Size")))
        except (BotoCoreError, ClientError) as exc:
            raise SourceError(f"source {self.name}: cannot list s3://{self.spec.bucket}/{self.spec.prefix}: {exc}".splitlines()[0]) from None
        return Listing(items)

    def fetch(self, item: Item, folder: Path) -> Path:
        from botocore.exceptions import BotoCoreError, ClientError

        target = folder / safe_file_name(item.key, item.suffix)
        try:
            response = self._client.get_object(Bucket=self.spec.bucket, Key=item.key)
            with target.open("wb") as out:
                for block in response["Body"].iter_chunks(1 << 20):
                    out.write(block)
        except ClientError as exc:
            code = exc.response.get("Error", {}).get("Code", "")
            if code in ("NoSuchKey", "404"):
                raise DocumentError(ErrorCode.NOT_FOUND, f"{self.document_name(item.key)}: the object was removed since it was listed") from None
            raise DocumentError(ErrorCode.FETCH_FAILED, f"{self.document_name(item.key)}: {exc}".splitlines()[0]) from None
        except (BotoCoreError, OSError) as exc:
            raise DocumentError(ErrorCode.FETCH_FAILED, f"{self.document_name(item.key)}: {type(exc).__name__}: {exc}".splitlines()[0]) from None
        return target
