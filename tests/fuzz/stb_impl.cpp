// The stb image reader and PNG writer compiled into the fuzz build (see CMakeLists.txt: instrumented, unlike the
// distribution's libstb).
#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#include <stb_image.h>
#include <stb_image_write.h>
