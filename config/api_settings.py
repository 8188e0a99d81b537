"""Django REST Framework's and drf-spectacular's settings: fixed, none read from the
environment (config/settings.py imports them)."""

REST_FRAMEWORK = {
    "DEFAULT_SCHEMA_CLASS": "api.schema.ApiAutoSchema",
    "DEFAULT_METADATA_CLASS": "api.metadata.WriteFieldsMetadata",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # DRF's JSON, printed by orjson where it prints the same bytes (api/renderers.py).
    "DEFAULT_RENDERER_CLASSES": [
        "api.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_PARSER_CLASSES": [
        "api.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "api.filters.Pagination",
    "PAGE_SIZE": 50,
    "DEFAULT_FILTER_BACKENDS": [
        "api.filters.StrictFilterBackend",
        "api.filters.StrictOrderingFilter",
    ],
    "DEFAULT_THROTTLE_CLASSES": ["api.throttling.TokenWriteThrottle"],
    "EXCEPTION_HANDLER": "api.errors.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Clusterbid API",
    "DESCRIPTION": (
        "Everything a provider or buyer does in the browser, from a script. "
        "Authenticate with `Authorization: Token <secret>` (create one at /account/tokens/) "
        "or the browser session. Errors look like "
        '`{"detail": "...", "errors": {"field": ["..."]}}`.'
    ),
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "RequestStatusEnum": "bids.choices.RequestStatus",
        "BidStatusEnum": "bids.choices.BidStatus",
        "RegionEnum": "bids.choices.Region",
        "ReservationStatusEnum": "acceptance.models.ReservationStatus",
        "SeverityEnum": "incidents.models.Severity",
        "IncidentEvidenceKindEnum": "incidents.models.IncidentEvidenceKind",
        "AnnexKindEnum": "annexes.models.AnnexKind",
        "UsageStateEnum": "billing.models.UsageState",
        "UsageUnitEnum": "billing.models.UsageUnit",
        "ReferenceSourceEnum": "acceptance.models.ReferenceSource",
        "ObservedKindEnum": "observed.models.ObservedKind",
        "IsolationClassEnum": "bids.choices.IsolationClass",
        "PlannedChangeKindEnum": "delivery.models.ChangeKind",
        "EventEnum": "notices.choices.Event",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.add_error_responses",
    ],
    # Swagger UI and ReDoc come from drf-spectacular-sidecar's static files, never a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}
