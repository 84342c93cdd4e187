"""Each Chinese cloud's request signer reproduces the worked example its provider documents."""

from __future__ import annotations

from gpuplan.catalog.providers.signing import (
    acs3_authorization,
    huawei_authorization,
    sha256_hex,
    volc_authorization,
)

EMPTY_SHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


def test_huawei_apig_signature_matches_huaweis_documented_example() -> None:
    # Huawei Cloud "API Request Signing Guide", AK/SK Signing and Authentication Algorithm
    # (read 2026-12-01, pages updated 2023-12-22):
    # https://support.huaweicloud.com/intl/en-us/devg-apisign/api-sign-algorithm-002.html (canonical
    # request: GET VPC list, X-Sdk-Date 20191115T033655Z), -003.html (string to sign, canonical hash
    # b25362e6…cd7a), -004.html ("If the SK is MFyfvK41…VmHc, the calculated signature is 7be66680…6ebe").
    auth = huawei_authorization(
        access_key="QTWAOYTTINDUT2QVKYUC",
        secret_key="MFyfvK41ba2giqM7Uio6PznpdUKGpownRZlmVmHc",
        method="GET",
        path="/v1/77b6a44cba5143ab91d13ab9a8ff44fd/vpcs",
        query="limit=2&marker=13551d6b-755d-4757-b956-536f674975c0",
        headers={
            "Content-Type": "application/json",
            "Host": "service.region.example.com",
            "X-Sdk-Date": "20191115T033655Z",
        },
        body=b"",
    )
    assert auth == (
        "SDK-HMAC-SHA256 Access=QTWAOYTTINDUT2QVKYUC, SignedHeaders=content-type;host;x-sdk-date, "
        "Signature=7be6668032f70418fcc22abc52071e57aff61b84a1d2381bb430d6870f4f6ebe"
    )


def test_volcengine_signature_matches_the_documented_iam_example() -> None:
    # Volcano Engine's documented example (read 2026-12-01): the Authorization header
    # "HMAC-SHA256 Credential=AKLTMjI2…ZkYzE/20201230/cn-north-1/iam/request, SignedHeaders=
    # content-type;host;x-content-sha256;x-date, Signature=28eeabbb…d8a7" is printed in the common
    # parameters page https://www.volcengine.com/docs/6500/1285432 (2024-07-08); its inputs (the SK
    # TnpC…MjWQ==, GET iam ListUsers Limit=10 Offset=0 Version=2018-01-01, X-Date 20201230T081805Z)
    # are those of the signing example https://www.volcengine.com/docs/6369/67270 before its 2024
    # rewrite, as the RTC signing page https://www.volcengine.com/docs/6348/69859 still lists them and
    # as the independent cloud-api-signer package's test records them (canonical hash 3a4d4dee…7447).
    auth = volc_authorization(
        access_key="AKLTMjI2ODVlYzI3ZGY1NGU4ZjhjYWRjMTlmNTM5OTZkYzE",
        secret_key="TnpCak5XWXpZV1U0WkRaaE5ERmxaR0ZpTmpjeVkyUXlZek0wTWpJMU1qWQ==",
        region="cn-north-1",
        service="iam",
        method="GET",
        query="Action=ListUsers&Limit=10&Offset=0&Version=2018-01-01",
        headers={
            "Content-Type": "application/x-www-form-urlencoded; charset=utf-8",
            "Host": "iam.volcengineapi.com",
            "X-Content-Sha256": EMPTY_SHA256,
            "X-Date": "20201230T081805Z",
        },
        body=b"",
    )
    assert auth == (
        "HMAC-SHA256 Credential=AKLTMjI2ODVlYzI3ZGY1NGU4ZjhjYWRjMTlmNTM5OTZkYzE/20201230/cn-north-1/iam/"
        "request, SignedHeaders=content-type;host;x-content-sha256;x-date, "
        "Signature=28eeabbbd726b87002e0fe58ad8c1c768e619b06e2646f35b6ad7ed029a6d8a7"
    )


def test_acs3_signature_matches_alibabas_documented_fixed_parameter_example() -> None:
    # Alibaba Cloud SDK "Request syntax and signature method V3", fixed-parameter example (read
    # 2026-12-01; page updated 2025-02-05):
    # https://www.alibabacloud.com/help/en/sdk/product-overview/v3-request-structure-and-signature
    # POST RunInstances, x-acs-date 2023-10-26T10:22:32Z, nonce 3156853299f313e23d1673dc12e1703d:
    # hashed canonical request 7ea06492…e259, signature 06563a9e…83c0.
    headers = {
        "host": "ecs.cn-shanghai.aliyuncs.com",
        "x-acs-action": "RunInstances",
        "x-acs-content-sha256": EMPTY_SHA256,
        "x-acs-date": "2023-10-26T10:22:32Z",
        "x-acs-signature-nonce": "3156853299f313e23d1673dc12e1703d",
        "x-acs-version": "2014-05-26",
    }
    auth = acs3_authorization(
        access_key_id="YourAccessKeyId",
        access_key_secret="YourAccessKeySecret",
        method="POST",
        query="ImageId=win2019_1809_x64_dtc_zh-cn_40G_alibase_20230811.vhd&RegionId=cn-shanghai",
        headers=headers,
        body=b"",
    )
    assert auth == (
        "ACS3-HMAC-SHA256 Credential=YourAccessKeyId,"
        "SignedHeaders=host;x-acs-action;x-acs-content-sha256;x-acs-date;x-acs-signature-nonce;"
        "x-acs-version,Signature=06563a9e1b43f5dfe96b81484da74bceab24a1d853912eee15083a6f0f3283c0"
    )


def test_signatures_change_with_the_body() -> None:
    base = {"Host": "bss.myhuaweicloud.com", "X-Sdk-Date": "20261201T000000Z"}
    kw = {"access_key": "a", "secret_key": "s", "method": "POST", "path": "/v2/x", "query": ""}
    assert huawei_authorization(headers=base, body=b"{}", **kw) != huawei_authorization(
        headers=base, body=b'{"a":1}', **kw
    )
    assert sha256_hex(b"") == EMPTY_SHA256
