"""``GET /docs``: Swagger UI over ``/openapi.json``, from files this service serves itself.

FastAPI's own ``/docs`` loads Swagger UI from a CDN, which machines without internet cannot
reach. The ``fastapi-offline`` package ships the same files (Swagger UI 5, which reads the
OpenAPI 3.1 schema FastAPI writes); they are served under ``/docs/assets``. The online
validator badge is off: it would ask validator.swagger.io about the schema.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS = "/docs/assets"
_SWAGGER_PACKAGE = ("fastapi_offline", "static")


def install_docs(app: FastAPI) -> None:
    """Serve Swagger UI at ``/docs`` and its files under ``ASSETS``; build ``app`` with
    ``docs_url=None`` so that FastAPI's CDN page is not served as well."""
    if app.docs_url is not None:
        raise ValueError("create the app with docs_url=None: its /docs loads from a CDN")
    app.mount(ASSETS, StaticFiles(packages=[_SWAGGER_PACKAGE]), name="docs-assets")
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = str(request.scope.get("root_path", "")).rstrip("/")
        return get_swagger_ui_html(
            openapi_url=f"{root}{openapi_url}",
            title=f"{app.title}: HTTP API",
            swagger_js_url=f"{root}{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS}/favicon.png",
            swagger_ui_parameters={"validatorUrl": None},
        )
