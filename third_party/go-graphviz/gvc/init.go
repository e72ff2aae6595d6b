package gvc

import (
	"github.com/goccy/go-graphviz/internal/wasm"
)

// Load registers the render engines' callbacks; upstream did it in init
// (simctl's patch, see SIMCTL.md). It needs the module wasm.Load makes.
func Load() {
	// The enumerations copied from package wasm at init held its
	// defaults, not the module's values, which wasm.Load has just read.
	DeviceDoesPages = DeviceFeature(wasm.DEVICE_DOES_PAGES)
	DeviceDoesLayers = DeviceFeature(wasm.DEVICE_DOES_LAYERS)
	DeviceEvents = DeviceFeature(wasm.DEVICE_EVENTS)
	DeviceDoesTrueColor = DeviceFeature(wasm.DEVICE_DOES_TRUECOLOR)
	DeviceBinaryFormat = DeviceFeature(wasm.DEVICE_BINARY_FORMAT)
	DeviceCompressedFormat = DeviceFeature(wasm.DEVICE_COMPRESSED_FORMAT)
	DeviceNoWriter = DeviceFeature(wasm.DEVICE_NO_WRITER)
	RenderYGoesDown = RenderFeature(wasm.RENDER_Y_GOES_DOWN)
	RenderDoesTransform = RenderFeature(wasm.RENDER_DOES_TRANSFORM)
	RenderDoesLabels = RenderFeature(wasm.RENDER_DOES_LABELS)
	RenderDoesMaps = RenderFeature(wasm.RENDER_DOES_MAPS)
	RenderDoesMapRectangle = RenderFeature(wasm.RENDER_DOES_MAP_RECTANGLE)
	RenderDoesMapCircle = RenderFeature(wasm.RENDER_DOES_MAP_CIRCLE)
	RenderDoesMapPolygon = RenderFeature(wasm.RENDER_DOES_MAP_POLYGON)
	RenderDoesMapEllipse = RenderFeature(wasm.RENDER_DOES_MAP_ELLIPSE)
	RenderDoesMapBspline = RenderFeature(wasm.RENDER_DOES_MAP_BSPLINE)
	RenderDoesTooltips = RenderFeature(wasm.RENDER_DOES_TOOLTIPS)
	RenderDoesTargets = RenderFeature(wasm.RENDER_DOES_TARGETS)
	RenderDoesZ = RenderFeature(wasm.RENDER_DOES_Z)
	RenderNoWhiteBg = RenderFeature(wasm.RENDER_NO_WHITE_BG)
	HSVADouble = ColorType(wasm.HSVA_DOUBLE)
	RGBAByte = ColorType(wasm.RGBA_BYTE)
	RGBAWord = ColorType(wasm.RGBA_WORD)
	RGBADouble = ColorType(wasm.RGBA_DOUBLE)
	ColorString = ColorType(wasm.COLOR_STRING)
	ColorIndex = ColorType(wasm.COLOR_INDEX)
	LabelPlain = LabelType(wasm.LABEL_PLAIN)
	LabelHTML = LabelType(wasm.LABEL_HTML)
	FillNone = FillType(wasm.FILL_NONE)
	FillSolid = FillType(wasm.FILL_SOLID)
	FillLinear = FillType(wasm.FILL_LINEAR)
	FillRadial = FillType(wasm.FILL_RADIAL)
	PenNone = PenType(wasm.PEN_NONE)
	PenDashed = PenType(wasm.PEN_DASHED)
	PenDotted = PenType(wasm.PEN_DOTTED)
	PenSolid = PenType(wasm.PEN_SOLID)
	RootGraphObjectType = ObjectType(wasm.ROOTGRAPH_OBJTYPE)
	ClusterObjectType = ObjectType(wasm.CLUSTER_OBJTYPE)
	NodeObjectType = ObjectType(wasm.NODE_OBJTYPE)
	EdgeObjectType = ObjectType(wasm.EDGE_OBJTYPE)
	ImageTypeNull = ImageType(wasm.IMAGE_TYPE_NULL)
	ImageTypeBMP = ImageType(wasm.IMAGE_TYPE_BMP)
	ImageTypeGIF = ImageType(wasm.IMAGE_TYPE_GIF)
	ImageTypePNG = ImageType(wasm.IMAGE_TYPE_PNG)
	ImageTypeJPEG = ImageType(wasm.IMAGE_TYPE_JPEG)
	ImageTypePDF = ImageType(wasm.IMAGE_TYPE_PDF)
	ImageTypePS = ImageType(wasm.IMAGE_TYPE_PS)
	ImageTypeEPS = ImageType(wasm.IMAGE_TYPE_EPS)
	ImageTypeSVG = ImageType(wasm.IMAGE_TYPE_SVG)
	ImageTypeXML = ImageType(wasm.IMAGE_TYPE_XML)
	ImageTypeRIFF = ImageType(wasm.IMAGE_TYPE_RIFF)
	ImageTypeWEBP = ImageType(wasm.IMAGE_TYPE_WEBP)
	ImageTypeICO = ImageType(wasm.IMAGE_TYPE_ICO)
	ImageTypeTIFF = ImageType(wasm.IMAGE_TYPE_TIFF)
	getRenderEnginePtr := func(job *wasm.Job) uint64 {
		return job.GetGvc().GetApi()[wasm.API_RENDER].GetTypeptr().GetEngine().(uint64)
	}
	getLoadImageEnginePtr := func(job *wasm.Job) uint64 {
		return job.GetGvc().GetApi()[wasm.API_LOADIMAGE].GetTypeptr().GetEngine().(uint64)
	}

	wasm.Register_RenderEngine_BeginJob(func(job *wasm.Job) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_EndJob(func(job *wasm.Job) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_BeginGraph(func(job *wasm.Job) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_EndGraph(func(job *wasm.Job) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_BeginLayer(func(job *wasm.Job, _ string, _ int, _ int) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_EndLayer(func(job *wasm.Job) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_BeginPage(func(job *wasm.Job) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_EndPage(func(job *wasm.Job) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_BeginCluster(func(job *wasm.Job) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_EndCluster(func(job *wasm.Job) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_BeginNodes(func(job *wasm.Job) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_EndNodes(func(job *wasm.Job) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_BeginEdges(func(job *wasm.Job) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_EndEdges(func(job *wasm.Job) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_BeginNode(func(job *wasm.Job) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_EndNode(func(job *wasm.Job) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_BeginEdge(func(job *wasm.Job) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_EndEdge(func(job *wasm.Job) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_BeginAnchor(func(job *wasm.Job, _ string, _ string, _ string, _ string) (uint64, error) {
		return getRenderEnginePtr(job), nil
	})
	wasm.Register_RenderEngine_EndAnchor(func(job *wasm.Job) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_BeginLabel(func(job *wasm.Job, _ wasm.LabelType) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_EndLabel(func(job *wasm.Job) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_Textspan(func(job *wasm.Job, _ *wasm.PointFloat, _ *wasm.Textspan) (uint64, error) {
		return getRenderEnginePtr(job), nil
	})
	wasm.Register_RenderEngine_ResolveColor(func(job *wasm.Job, _ *wasm.Color) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_Ellipse(func(job *wasm.Job, _ []*wasm.PointFloat, _ int) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_Polygon(func(job *wasm.Job, _ []*wasm.PointFloat, _ uint32, _ int) (uint64, error) {
		return getRenderEnginePtr(job), nil
	})
	wasm.Register_RenderEngine_Beziercurve(func(job *wasm.Job, _ []*wasm.PointFloat, _ uint32, _ int) (uint64, error) {
		return getRenderEnginePtr(job), nil
	})
	wasm.Register_RenderEngine_Polyline(func(job *wasm.Job, _ []*wasm.PointFloat, _ uint32) (uint64, error) {
		return getRenderEnginePtr(job), nil
	})
	wasm.Register_RenderEngine_Comment(func(job *wasm.Job, _ string) (uint64, error) { return getRenderEnginePtr(job), nil })
	wasm.Register_RenderEngine_LibraryShape(func(job *wasm.Job, _ string, _ []*wasm.PointFloat, _ uint32, _ int) (uint64, error) {
		return getRenderEnginePtr(job), nil
	})

	wasm.Register_LoadImageEngine_LoadImage(func(job *wasm.Job, shape *wasm.UserShape, bf *wasm.BoxFloat, filled bool) (uint64, error) {
		return getLoadImageEnginePtr(job), nil
	})
}
