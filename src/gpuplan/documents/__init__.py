"""The JSON documents gpuplan writes and reads, as pydantic models: one model per output.

``--json`` writes a document with ``model_dump_json``; ``gpuplan deploy`` reads a plan with
``model_validate``; ``tools/gen_schemas.py`` publishes their JSON Schemas in ``docs/schemas/``.
Every document carries ``schema_version``; counts are integers; money fields name their currency
and unit (``price_usd_per_hour``, ``total_cost_usd``); unknown numbers are ``null``, never NaN.

This layer sits with :mod:`gpuplan.vocab` at the bottom of the house: it imports nothing of
gpuplan but the vocabulary, so every layer may build or read a document.
"""

from gpuplan.documents.catalog import (
    GPUS_SCHEMA_VERSION,
    OFFERS_SCHEMA_VERSION,
    CheapestPrice,
    GpuItem,
    GpusDocument,
    OfferItem,
    OffersDocument,
)
from gpuplan.documents.catalog_admin import (
    CATALOG_INFO_SCHEMA_VERSION,
    HISTORY_SCHEMA_VERSION,
    IMPORT_SCHEMA_VERSION,
    CatalogInfoDocument,
    HistoryDocument,
    ImportDocument,
)
from gpuplan.documents.estimate import (
    ESTIMATE_SCHEMA_VERSION,
    AdviceItem,
    CalibrationSummary,
    DecodeDoc,
    EstimateDocument,
    EstimateRow,
    EstimateWorkload,
    ServingDoc,
)
from gpuplan.documents.measure import MEASURE_SCHEMA_VERSION, MeasurementDocument
from gpuplan.documents.plan import (
    PLAN_SCHEMA_VERSION,
    CostBreakdownDoc,
    PersonaDoc,
    PlanConstraintsDoc,
    PlanDocument,
    PlanOption,
    PlanWorkload,
    SpotDoc,
)
from gpuplan.documents.simulate import (
    AUTOSCALE_SCHEMA_VERSION,
    SHARE_SCHEMA_VERSION,
    AutoscaleDocument,
    ShareDocument,
)
from gpuplan.documents.tco import TCO_SCHEMA_VERSION, TcoDocument

__all__ = [
    "AUTOSCALE_SCHEMA_VERSION",
    "CATALOG_INFO_SCHEMA_VERSION",
    "DOCUMENTS",
    "ESTIMATE_SCHEMA_VERSION",
    "GPUS_SCHEMA_VERSION",
    "HISTORY_SCHEMA_VERSION",
    "IMPORT_SCHEMA_VERSION",
    "MEASURE_SCHEMA_VERSION",
    "OFFERS_SCHEMA_VERSION",
    "PLAN_SCHEMA_VERSION",
    "SHARE_SCHEMA_VERSION",
    "TCO_SCHEMA_VERSION",
    "AdviceItem",
    "AutoscaleDocument",
    "CalibrationSummary",
    "CatalogInfoDocument",
    "CheapestPrice",
    "CostBreakdownDoc",
    "DecodeDoc",
    "EstimateDocument",
    "EstimateRow",
    "EstimateWorkload",
    "GpuItem",
    "GpusDocument",
    "HistoryDocument",
    "ImportDocument",
    "MeasurementDocument",
    "OfferItem",
    "OffersDocument",
    "PersonaDoc",
    "PlanConstraintsDoc",
    "PlanDocument",
    "PlanOption",
    "PlanWorkload",
    "ServingDoc",
    "ShareDocument",
    "SpotDoc",
    "TcoDocument",
]

from gpuplan.documents.base import Document

#: Every published document, by the file name stem of its schema in docs/schemas/.
DOCUMENTS: dict[str, type[Document]] = {
    "plan": PlanDocument,
    "estimate": EstimateDocument,
    "measure": MeasurementDocument,
    "offers": OffersDocument,
    "gpus": GpusDocument,
    "catalog-info": CatalogInfoDocument,
    "catalog-import": ImportDocument,
    "catalog-history": HistoryDocument,
    "simulate-autoscale": AutoscaleDocument,
    "simulate-share": ShareDocument,
    "tco": TcoDocument,
}
