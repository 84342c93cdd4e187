"""The JSON documents gpuplan writes and reads, as pydantic models: one model per output.

``--json`` writes a document with ``model_dump_json``; ``gpuplan deploy`` reads a plan with
``model_validate``; ``tools/gen_schemas.py`` publishes their JSON Schemas in ``docs/schemas/``.
Every document carries ``schema_version``; counts are integers; money fields name their currency
and unit (``price_usd_per_hour``, ``total_cost_usd``); unknown numbers are ``null``, never NaN.

The models are imported on first use (``from gpuplan.documents import PlanDocument`` works as
usual): a command that writes one document does not pay for importing all ten.

This layer sits with :mod:`gpuplan.vocab` at the bottom of the house: it imports nothing of
gpuplan but the vocabulary, so every layer may build or read a document.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the names as the type checker sees them; at run time, __getattr__ below
    from gpuplan.documents.base import Document
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
        IMPORTS_SCHEMA_VERSION,
        REFRESH_SCHEMA_VERSION,
        UNDO_SCHEMA_VERSION,
        CatalogInfoDocument,
        HistoryDocument,
        ImportDocument,
        ImportsDocument,
        RefreshDocument,
        UndoDocument,
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
    from gpuplan.documents.measure import (
        MEASURE_SCHEMA_VERSION,
        MeasurementDocument,
        RecordingItem,
        RecordingsDocument,
    )
    from gpuplan.documents.plan import (
        PLAN_SCHEMA_VERSION,
        CostBreakdownDoc,
        PersonaDoc,
        PlanConstraintsDoc,
        PlanDocument,
        PlanInfeasibleDocument,
        PlanOption,
        PlanWorkload,
        SpotDoc,
    )
    from gpuplan.documents.serve import (
        BUDGET_SCHEMA_VERSION,
        JOB_SCHEMA_VERSION,
        PRICE_CHANGES_SCHEMA_VERSION,
        SERVE_SCHEMA_VERSION,
        AuditDocument,
        BudgetDocument,
        CountriesDocument,
        DiscountsDocument,
        ErrorDocument,
        HealthDocument,
        JobDocument,
        PriceChangesDocument,
        SavedPlansDocument,
        WorkloadsDocument,
        YearBudgetDocument,
    )
    from gpuplan.documents.simulate import (
        AUTOSCALE_SCHEMA_VERSION,
        SHARE_SCHEMA_VERSION,
        AutoscaleDocument,
        ShareDocument,
    )
    from gpuplan.documents.tco import TCO_SCHEMA_VERSION, TcoDocument

    DOCUMENTS: dict[str, type[Document]]


__all__ = [
    "AUTOSCALE_SCHEMA_VERSION",
    "BUDGET_SCHEMA_VERSION",
    "CATALOG_INFO_SCHEMA_VERSION",
    "DOCUMENTS",
    "ESTIMATE_SCHEMA_VERSION",
    "GPUS_SCHEMA_VERSION",
    "HISTORY_SCHEMA_VERSION",
    "IMPORTS_SCHEMA_VERSION",
    "IMPORT_SCHEMA_VERSION",
    "JOB_SCHEMA_VERSION",
    "MEASURE_SCHEMA_VERSION",
    "OFFERS_SCHEMA_VERSION",
    "PLAN_SCHEMA_VERSION",
    "PRICE_CHANGES_SCHEMA_VERSION",
    "REFRESH_SCHEMA_VERSION",
    "SERVE_SCHEMA_VERSION",
    "SHARE_SCHEMA_VERSION",
    "TCO_SCHEMA_VERSION",
    "UNDO_SCHEMA_VERSION",
    "AdviceItem",
    "AuditDocument",
    "AutoscaleDocument",
    "BudgetDocument",
    "CalibrationSummary",
    "CatalogInfoDocument",
    "CheapestPrice",
    "CostBreakdownDoc",
    "CountriesDocument",
    "DecodeDoc",
    "DiscountsDocument",
    "ErrorDocument",
    "EstimateDocument",
    "EstimateRow",
    "EstimateWorkload",
    "GpuItem",
    "GpusDocument",
    "HealthDocument",
    "HistoryDocument",
    "ImportDocument",
    "ImportsDocument",
    "JobDocument",
    "MeasurementDocument",
    "OfferItem",
    "OffersDocument",
    "PersonaDoc",
    "PlanConstraintsDoc",
    "PlanDocument",
    "PlanInfeasibleDocument",
    "PlanOption",
    "PlanWorkload",
    "PriceChangesDocument",
    "RecordingItem",
    "RecordingsDocument",
    "RefreshDocument",
    "SavedPlansDocument",
    "ServingDoc",
    "ShareDocument",
    "SpotDoc",
    "TcoDocument",
    "UndoDocument",
    "WorkloadsDocument",
    "YearBudgetDocument",
]

#: Each public name -> the module that defines it.
_WHERE: dict[str, str] = {
    "AUTOSCALE_SCHEMA_VERSION": "simulate",
    "AdviceItem": "estimate",
    "AutoscaleDocument": "simulate",
    "CATALOG_INFO_SCHEMA_VERSION": "catalog_admin",
    "CalibrationSummary": "estimate",
    "CatalogInfoDocument": "catalog_admin",
    "CheapestPrice": "catalog",
    "CostBreakdownDoc": "plan",
    "DecodeDoc": "estimate",
    "ESTIMATE_SCHEMA_VERSION": "estimate",
    "EstimateDocument": "estimate",
    "EstimateRow": "estimate",
    "EstimateWorkload": "estimate",
    "GPUS_SCHEMA_VERSION": "catalog",
    "GpuItem": "catalog",
    "GpusDocument": "catalog",
    "HISTORY_SCHEMA_VERSION": "catalog_admin",
    "HistoryDocument": "catalog_admin",
    "IMPORT_SCHEMA_VERSION": "catalog_admin",
    "REFRESH_SCHEMA_VERSION": "catalog_admin",
    "IMPORTS_SCHEMA_VERSION": "catalog_admin",
    "UNDO_SCHEMA_VERSION": "catalog_admin",
    "ImportDocument": "catalog_admin",
    "ImportsDocument": "catalog_admin",
    "UndoDocument": "catalog_admin",
    "RefreshDocument": "catalog_admin",
    "MEASURE_SCHEMA_VERSION": "measure",
    "MeasurementDocument": "measure",
    "RecordingItem": "measure",
    "RecordingsDocument": "measure",
    "OFFERS_SCHEMA_VERSION": "catalog",
    "OfferItem": "catalog",
    "OffersDocument": "catalog",
    "PLAN_SCHEMA_VERSION": "plan",
    "PersonaDoc": "plan",
    "PlanConstraintsDoc": "plan",
    "PlanDocument": "plan",
    "PlanInfeasibleDocument": "plan",
    "PlanOption": "plan",
    "PlanWorkload": "plan",
    "SHARE_SCHEMA_VERSION": "simulate",
    "ServingDoc": "estimate",
    "ShareDocument": "simulate",
    "SpotDoc": "plan",
    "TCO_SCHEMA_VERSION": "tco",
    "TcoDocument": "tco",
    "SERVE_SCHEMA_VERSION": "serve",
    "BUDGET_SCHEMA_VERSION": "serve",
    "JOB_SCHEMA_VERSION": "serve",
    "PRICE_CHANGES_SCHEMA_VERSION": "serve",
    "AuditDocument": "serve",
    "BudgetDocument": "serve",
    "CountriesDocument": "serve",
    "DiscountsDocument": "serve",
    "ErrorDocument": "serve",
    "HealthDocument": "serve",
    "JobDocument": "serve",
    "PriceChangesDocument": "serve",
    "SavedPlansDocument": "serve",
    "WorkloadsDocument": "serve",
    "YearBudgetDocument": "serve",
}

#: Every published document's model name, by the file name stem of its schema in docs/schemas/.
_DOCUMENT_NAMES: dict[str, str] = {
    "plan": "PlanDocument",
    "plan-infeasible": "PlanInfeasibleDocument",
    "estimate": "EstimateDocument",
    "measure": "MeasurementDocument",
    "measure-recordings": "RecordingsDocument",
    "offers": "OffersDocument",
    "gpus": "GpusDocument",
    "catalog-info": "CatalogInfoDocument",
    "catalog-import": "ImportDocument",
    "catalog-imports": "ImportsDocument",
    "catalog-undo": "UndoDocument",
    "catalog-history": "HistoryDocument",
    "catalog-refresh": "RefreshDocument",
    "simulate-autoscale": "AutoscaleDocument",
    "simulate-share": "ShareDocument",
    "tco": "TcoDocument",
    "serve-error": "ErrorDocument",
    "serve-health": "HealthDocument",
    "serve-job": "JobDocument",
    "serve-workloads": "WorkloadsDocument",
    "serve-plans": "SavedPlansDocument",
    "serve-budget": "BudgetDocument",
    "serve-budget-year": "YearBudgetDocument",
    "serve-price-changes": "PriceChangesDocument",
    "serve-discounts": "DiscountsDocument",
    "serve-audit": "AuditDocument",
    "serve-countries": "CountriesDocument",
}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use; ``DOCUMENTS``, every document model."""
    import importlib

    if name == "DOCUMENTS":  # dict[str, type[Document]]
        return {stem: __getattr__(model) for stem, model in _DOCUMENT_NAMES.items()}
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"gpuplan.documents.{module}"), name)
    globals()[name] = value
    return value
