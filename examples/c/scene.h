/* The scene both examples draw: a quad of two triangles plus a third triangle sharing an
 * edge (5 vertices, 9 indices, reuse), for a shader with inputs v0 position (xyz),
 * v1 colour (rgba), v2 texture coordinate (uv) and the uniforms projMtx c0-c3,
 * mdlvMtx c4-c7 (the corpus file lovebrew__lovepotion__main_v_pica.shbin). */
#ifndef PICAJIT_EXAMPLE_SCENE_H
#define PICAJIT_EXAMPLE_SCENE_H

#include <stdint.h>

/* Interleaved position (3 floats) and texture coordinate (2 floats): stride 5. */
static const float scene_pos_uv[] = {
    -1.0f, -1.0f, 0.5f,   0.0f, 0.0f,
     1.0f, -1.0f, 0.5f,   1.0f, 0.0f,
     1.0f,  1.0f, 0.5f,   1.0f, 1.0f,
    -1.0f,  1.0f, 0.5f,   0.0f, 1.0f,
     0.0f,  2.5f, -0.25f, 0.5f, 1.5f,
};
/* Colours, 4 floats each (one component out of range: the rasterizer clamps it). */
static const float scene_colors[] = {
    1.0f, 0.0f, 0.0f, 1.0f,
    0.0f, 1.0f, 0.0f, 1.0f,
    0.0f, 0.0f, 1.0f, 1.0f,
    1.0f, 1.0f, 1.0f, 0.5f,
    -2.0f, 0.25f, 0.75f, 1.0f,
};
static const uint16_t scene_indices[] = {0, 1, 2, 2, 3, 0, 3, 2, 4};

/* projMtx (c0-c3) then mdlvMtx (c4-c7), one row per uniform, x y z w. */
static const float scene_uniforms[8][4] = {
    {1.2f, 0.0f, 0.0f, 0.0f},
    {0.0f, 1.6f, 0.0f, 0.0f},
    {0.0f, 0.0f, -1.0f, -0.2f},
    {0.0f, 0.0f, -1.0f, 0.0f},
    {1.0f, 0.0f, 0.0f, 0.1f},
    {0.0f, 1.0f, 0.0f, -0.2f},
    {0.0f, 0.0f, 1.0f, -3.0f},
    {0.0f, 0.0f, 0.0f, 1.0f},
};

#endif
